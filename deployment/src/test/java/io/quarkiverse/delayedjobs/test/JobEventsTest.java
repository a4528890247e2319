package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobDeadLettered;
import io.quarkiverse.delayedjobs.JobFailed;
import io.quarkiverse.delayedjobs.JobSucceeded;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.Context;

/**
 * {@link JobSucceeded}, {@link JobFailed} and {@link JobDeadLettered} reach synchronous observers on a worker thread
 * and asynchronous ones, carry the delivery and the failure, and an observer that throws changes nothing for the job.
 */
public class JobEventsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, Observers.class, Reading.class,
                    RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "job-events")
            .overrideConfigKey("quarkus.delayed-jobs.queues.failing.max-attempts", "2")
            .overrideConfigKey("quarkus.delayed-jobs.queues.failing.backoff.initial", "100ms");

    public record Reading(double celsius) {
    }

    static class Handlers {
        @Delayed("fine")
        void fine(String text) {
        }

        @Delayed("failing")
        void failing() {
            throw new IllegalStateException("downstream unavailable");
        }

        @Delayed("typed")
        void typed(Reading reading) {
        }
    }

    record Seen(Object event, boolean onEventLoop, String thread) {
    }

    static class Observers {
        static final List<Seen> sync = new CopyOnWriteArrayList<>();
        static final List<Object> async = new CopyOnWriteArrayList<>();

        void succeeded(@Observes JobSucceeded event) {
            sync.add(new Seen(event, Context.isOnEventLoopThread(), Thread.currentThread().getName()));
            // A failing observer is logged; the job is acknowledged all the same.
            throw new IllegalStateException("observer failure");
        }

        void failed(@Observes JobFailed event) {
            sync.add(new Seen(event, Context.isOnEventLoopThread(), Thread.currentThread().getName()));
        }

        void dead(@Observes JobDeadLettered event) {
            sync.add(new Seen(event, Context.isOnEventLoopThread(), Thread.currentThread().getName()));
        }

        void succeededAsync(@ObservesAsync JobSucceeded event) {
            async.add(event);
        }

        void deadAsync(@ObservesAsync JobDeadLettered event) {
            async.add(event);
        }
    }

    @Inject
    DelayedScheduler scheduler;

    private static <T> List<T> seen(Class<T> type, String id) {
        return Observers.sync.stream().map(Seen::event).filter(type::isInstance).map(type::cast)
                .filter(e -> id(e).equals(id)).toList();
    }

    private static String id(Object event) {
        if (event instanceof JobSucceeded e) {
            return e.job().id();
        }
        if (event instanceof JobFailed e) {
            return e.job().id();
        }
        return ((JobDeadLettered) event).job().id();
    }

    @Test
    void aSuccessReachesBothKindsOfObserversOffTheEventLoop() {
        scheduler.schedule("fine", "fine:1", "hello", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> seen(JobSucceeded.class, "fine:1").size() == 1);
        JobSucceeded event = seen(JobSucceeded.class, "fine:1").get(0);
        assertEquals("fine", event.job().queue());
        assertEquals(1, event.job().attempt());
        assertFalse(event.duration().isNegative());
        Seen sync = Observers.sync.stream().filter(s -> s.event() == event).findFirst().orElseThrow();
        assertFalse(sync.onEventLoop(), "observer ran on " + sync.thread());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Observers.async.stream().anyMatch(e -> e instanceof JobSucceeded s
                        && s.job().id().equals("fine:1")));
        // The observer threw, yet the job was acknowledged: nothing is left of it.
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("fine", "fine:1").isEmpty());
        assertTrue(seen(JobFailed.class, "fine:1").isEmpty());
    }

    @Test
    void eachFailureIsToldAndTheLastOneSendsTheJobToTheDeadLetters() {
        scheduler.schedule("failing", "failing:1", null, Duration.ZERO);
        await().atMost(Duration.ofSeconds(15)).until(() -> seen(JobDeadLettered.class, "failing:1").size() == 1);
        List<JobFailed> failures = seen(JobFailed.class, "failing:1");
        assertEquals(List.of(1, 2), failures.stream().map(f -> f.job().attempt()).toList());
        failures.forEach(f -> assertEquals("downstream unavailable", f.failure().getMessage()));
        JobDeadLettered dead = seen(JobDeadLettered.class, "failing:1").get(0);
        assertEquals(2, dead.job().attempt());
        assertEquals(IllegalStateException.class, dead.failure().getClass());
        assertTrue(Observers.sync.stream().filter(s -> s.event() instanceof JobFailed || s.event() instanceof JobDeadLettered)
                .noneMatch(Seen::onEventLoop));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> Observers.async.stream().anyMatch(e -> e instanceof JobDeadLettered d
                        && d.job().id().equals("failing:1")));
        // The move to the dead letters is told once, to each kind of observer.
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
            assertEquals(1, seen(JobDeadLettered.class, "failing:1").size(), "synchronous JobDeadLettered events");
            assertEquals(1, Observers.async.stream().filter(e -> e instanceof JobDeadLettered d
                    && d.job().id().equals("failing:1")).count(), "asynchronous JobDeadLettered events");
        });
        assertTrue(seen(JobSucceeded.class, "failing:1").isEmpty());
    }

    @Test
    void anUnreadablePayloadFailsOnceAndIsDeadLetteredAtOnce() {
        scheduler.schedule("typed", "typed:1", "not a reading", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> seen(JobDeadLettered.class, "typed:1").size() == 1);
        List<JobFailed> failures = seen(JobFailed.class, "typed:1");
        assertEquals(1, failures.size());
        assertTrue(failures.get(0).failure().getMessage().contains("payload cannot be read"),
                failures.get(0).failure().getMessage());
    }
}
