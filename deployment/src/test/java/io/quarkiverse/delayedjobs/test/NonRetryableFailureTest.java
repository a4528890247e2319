package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.NonRetryableJobException;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;

/**
 * A handler that fails with {@link NonRetryableJobException}, thrown or as the cause of its failure, sends its job to
 * the dead letters at once, with attempts left; a recurring job gives the occurrence up and stays armed. A failure
 * whose causes loop is retried as any other.
 */
public class NonRetryableFailureTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "non-retryable")
            .overrideConfigKey("quarkus.delayed-jobs.max-attempts", "5")
            .overrideConfigKey("quarkus.delayed-jobs.backoff.initial", "50ms");

    static class Handlers {
        /** Deliveries per job id. */
        static final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        @Delayed("orders")
        void order(String how, JobContext job) {
            runs.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
            switch (how) {
                case "direct" -> throw new NonRetryableJobException("order 42 was deleted");
                case "wrapped" -> throw new IllegalStateException("while sending",
                        new NonRetryableJobException("customer 7 was deleted"));
                case "loop" -> {
                    // Two exceptions that cause each other: the search for a NonRetryableJobException must end.
                    RuntimeException a = new RuntimeException("a");
                    a.initCause(new RuntimeException("b", a));
                    throw a;
                }
                default -> throw new IllegalStateException("downstream unavailable");
            }
        }

        @Delayed("digests")
        Uni<Void> digest(JobContext job) {
            runs.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
            return Uni.createFrom().failure(new NonRetryableJobException("nothing to send"));
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theJobIsADeadLetterAfterOneAttempt() {
        scheduler.schedule("orders", "direct", "direct", Duration.ZERO);
        scheduler.schedule("orders", "wrapped", "wrapped", Duration.ZERO);
        scheduler.schedule("orders", "retried", "other", Duration.ZERO);

        await().atMost(Duration.ofSeconds(10)).until(() -> Stream.of("direct", "wrapped")
                .allMatch(id -> scheduler.find("orders", id).map(job -> job.state() == JobInfo.State.DEAD).orElse(false)));
        JobInfo direct = scheduler.find("orders", "direct").orElseThrow();
        assertEquals(JobInfo.State.DEAD, direct.state());
        assertEquals(1, direct.attempts());
        assertEquals(NonRetryableJobException.class.getName() + ": order 42 was deleted", direct.lastError());
        JobInfo wrapped = scheduler.find("orders", "wrapped").orElseThrow();
        assertEquals(JobInfo.State.DEAD, wrapped.state());
        assertEquals(1, wrapped.attempts());
        assertEquals("java.lang.IllegalStateException: while sending (not retried: "
                + NonRetryableJobException.class.getName() + ": customer 7 was deleted)", wrapped.lastError());

        // Any other failure is retried: the same handler's third job runs up to max-attempts.
        await().atMost(Duration.ofSeconds(10)).until(() -> Handlers.runs.get("retried").get() == 5);
        assertEquals(1, Handlers.runs.get("direct").get());
        assertEquals(1, Handlers.runs.get("wrapped").get());
    }

    @Test
    void aFailureWhoseCausesLoopIsRetried() {
        scheduler.schedule("orders", "looped", "loop", Duration.ZERO);
        // Retried as any failure, by a worker that goes on: the job runs its five attempts, then is a dead letter.
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("orders", "looped")
                .map(job -> job.state() == JobInfo.State.DEAD).orElse(false));
        assertEquals(5, Handlers.runs.get("looped").get());
        assertEquals("java.lang.RuntimeException: a", scheduler.find("orders", "looped").orElseThrow().lastError());
    }

    @Test
    void aRecurringJobGivesTheOccurrenceUpAndStaysArmed() {
        scheduler.recurring("digests", "daily", "0 6 * * *", ZoneOffset.UTC, null);
        assertEquals(true, scheduler.reschedule("digests", "daily", Duration.ZERO));

        await().atMost(Duration.ofSeconds(10)).until(() -> Handlers.runs.containsKey("daily")
                && scheduler.find("digests", "daily").orElseThrow().lastError() != null);
        JobInfo daily = scheduler.find("digests", "daily").orElseThrow();
        assertEquals(JobInfo.State.PENDING, daily.state());
        assertEquals(List.of(), scheduler.deadLetters("digests", 10));
        assertEquals(1, Handlers.runs.get("daily").get());
    }
}
