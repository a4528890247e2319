package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

/** {@code quarkus.delayed-jobs.metrics.enabled=false} keeps the jobs' meters out of an application with Micrometer. */
public class MetricsDisabledTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Micrometer.class, Handlers.class, RedisTestServer.class))
            .setForcedDependencies(Micrometer.WITH_PROMETHEUS)
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "metrics-disabled")
            .overrideConfigKey("quarkus.delayed-jobs.metrics.enabled", "false");

    static class Handlers {
        @Delayed("unmetered")
        void run() {
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    MeterRegistry registry;

    @Test
    void registersNoMeter() {
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("unmetered", "job:1", null, Duration.ofHours(1)));
        assertTrue(registry.getMeters().stream().noneMatch(m -> m.getId().getName().startsWith("delayed.jobs")),
                () -> registry.getMeters().stream().map(m -> m.getId().getName()).toList().toString());
        // Micrometer itself is there: the JVM's meters are.
        assertTrue(registry.getMeters().stream().anyMatch(m -> m.getId().getName().startsWith("jvm.")));
        scheduler.cancel("unmetered", "job:1");
    }
}
