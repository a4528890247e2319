package io.quarkiverse.delayedjobs.demo;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.runtime.StartupEvent;

/**
 * Schedules {@code demo:1} to {@code demo:N} at startup, due one, two, ... N seconds later.
 */
@ApplicationScoped
public class StartupJobs {

    private static final Logger LOG = Logger.getLogger(StartupJobs.class);

    void schedule(@Observes StartupEvent event, DelayedScheduler scheduler,
            @ConfigProperty(name = "demo.startup-jobs") int count) {
        for (int i = 1; i <= count; i++) {
            String id = "demo:" + i;
            // REPLACE: a restart (or a live reload) schedules the jobs again even if an earlier run left them pending.
            ScheduleResult result = scheduler.schedule(DemoHandler.QUEUE, id,
                    new Reminder("startup job " + i + " of " + count, 0), Duration.ofSeconds(i), OnConflict.REPLACE);
            LOG.infof("Scheduled %s due in %d s (%s)", id, i, result);
        }
    }
}
