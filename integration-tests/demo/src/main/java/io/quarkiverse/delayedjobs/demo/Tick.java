package io.quarkiverse.delayedjobs.demo;

import java.time.Duration;
import java.time.Instant;

import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.JobContext;

/**
 * A recurring job: its schedule comes from {@code demo.tick-cron}, and every instance registers it at startup
 * while one of them runs each occurrence.
 */
public class Tick {

    private static final Logger LOG = Logger.getLogger(Tick.class);

    @Delayed(value = "demo-tick", cron = "${demo.tick-cron}")
    void tick(JobContext job) {
        LOG.infof("Tick: the occurrence due at %s, lateness %d ms", job.dueAt(),
                Duration.between(job.dueAt(), Instant.now()).toMillis());
    }
}
