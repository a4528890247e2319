package io.quarkiverse.delayedjobs.demo;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.junit.jupiter.api.Test;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobSucceeded;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The testing page's recipes: a job due in an hour is run now with {@code reschedule(…, Duration.ZERO)}, and the test
 * waits for it through a {@code JobSucceeded} observer of its own.
 */
@QuarkusTest
@WithTestResource(RedisServerResource.class)
class RunNowTest {

    /** A bean of the tests: it sees the jobs of the application under test succeed. */
    @Singleton
    static class Succeeded {
        final Set<String> ids = ConcurrentHashMap.newKeySet();

        void succeeded(@Observes JobSucceeded event) {
            ids.add(event.job().id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    Succeeded succeeded;

    @Test
    void aJobDueLaterRunsNowWhenRescheduledToZero() {
        assertEquals(ScheduleResult.CREATED,
                scheduler.schedule("demo", "test:run-now", Map.of("text", "run me now"), Duration.ofHours(1)));

        assertTrue(scheduler.reschedule("demo", "test:run-now", Duration.ZERO));

        await().atMost(Duration.ofSeconds(10)).until(() -> succeeded.ids.contains("test:run-now"));
    }
}
