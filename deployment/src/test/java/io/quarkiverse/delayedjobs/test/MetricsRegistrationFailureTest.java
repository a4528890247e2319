package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobSucceeded;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Micrometer refuses to register a meter whose name and tags an application meter of another type already has. That
 * meter is left out and logged; the queue's other meters count as usual, and nothing changes for the jobs, their
 * schedule calls or their events.
 */
public class MetricsRegistrationFailureTest {

    private static final String QUEUE = "metrics-refused";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Micrometer.class, Handler.class, Observer.class, LoggedMessages.class,
                    RedisTestServer.class))
            .setForcedDependencies(Micrometer.WITH_PROMETHEUS)
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "metrics-refused");

    static class Handler {
        static final List<String> runs = new CopyOnWriteArrayList<>();

        @Delayed(QUEUE)
        void run(JobContext job) {
            runs.add(job.id() + "#" + job.attempt());
        }
    }

    static class Observer {
        static final List<String> succeeded = new CopyOnWriteArrayList<>();

        void succeeded(@Observes JobSucceeded event) {
            succeeded.add(event.job().id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    MeterRegistry registry;

    @Test
    void aMeterMicrometerRefusesChangesNothingForTheJobs() {
        // Say, from the code the extension replaced.
        Gauge.builder("delayed.jobs.started", () -> 0).tag("queue", QUEUE).register(registry);
        try (LoggedMessages logged = LoggedMessages.of("io.quarkiverse.delayedjobs", Level.WARNING)) {
            assertEquals(ScheduleResult.CREATED, scheduler.schedule(QUEUE, "job:1", null, Duration.ZERO));
            await().atMost(Duration.ofSeconds(10)).until(() -> Observer.succeeded.contains("job:1"));
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find(QUEUE, "job:1").isEmpty());
            assertEquals(List.of("job:1#1"), Handler.runs);
            assertTrue(logged.messages().stream().anyMatch(m -> m.contains("delayed.jobs.started")
                    && m.contains("There is already a registered meter of a different type")), logged.messages()::toString);
        }
        // The queue's other meters count all the same: no meter refused takes the others with it.
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.find("delayed.jobs.succeeded").tag("queue", QUEUE)
                .counter() != null && registry.find("delayed.jobs.succeeded").tag("queue", QUEUE).counter().count() == 1);
        assertEquals(1, registry.find("delayed.jobs.duration").tag("queue", QUEUE).timer().count());
        assertEquals(1, registry.find("delayed.jobs.scheduled").tag("queue", QUEUE).tag("result", "created").counter()
                .count());
    }
}
