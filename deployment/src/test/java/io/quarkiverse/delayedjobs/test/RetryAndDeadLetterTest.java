package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A failing handler is retried with growing delays, then dead-lettered with its last error; requeued, it runs again
 * and succeeds. An unreadable payload goes to the dead letters at once.
 */
public class RetryAndDeadLetterTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Flaky.class, Typed.class, Reading.class, Async.class,
                    RedisTestServer.class, LoggedMessages.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "retry")
            .overrideConfigKey("quarkus.delayed-jobs.queues.flaky.max-attempts", "3")
            .overrideConfigKey("quarkus.delayed-jobs.queues.flaky.backoff.initial", "400ms")
            .overrideConfigKey("quarkus.delayed-jobs.queues.flaky.backoff.max", "10s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.async.max-attempts", "1");

    record Attempt(int attempt, Instant at) {
    }

    static class Flaky {
        static final List<Attempt> attempts = new CopyOnWriteArrayList<>();
        static final AtomicBoolean healed = new AtomicBoolean();

        @Delayed("flaky")
        void run(JobContext context) {
            attempts.add(new Attempt(context.attempt(), Instant.now()));
            if (!healed.get()) {
                throw new IllegalStateException("downstream unavailable");
            }
        }
    }

    public record Reading(double celsius) {
    }

    static class Typed {
        static final List<Reading> received = new CopyOnWriteArrayList<>();

        @Delayed("typed")
        void run(Reading reading) {
            received.add(reading);
        }
    }

    static class Async {
        @Delayed("async")
        CompletionStage<Void> run() {
            // A stage derived from another fails with a CompletionException around the error.
            return CompletableFuture.completedFuture(null).thenRun(() -> {
                throw new IllegalStateException("mail server down");
            });
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void retriesWithGrowingDelaysThenDeadLettersThenRequeueRunsItAgain() {
        scheduler.schedule("flaky", "flaky:1", "payload", Duration.ZERO);

        JobInfo dead = await().atMost(Duration.ofSeconds(15))
                .until(() -> scheduler.find("flaky", "flaky:1").filter(j -> j.state() == JobInfo.State.DEAD),
                        found -> found.isPresent())
                .orElseThrow();
        assertEquals(3, Flaky.attempts.size());
        assertEquals(List.of(1, 2, 3), Flaky.attempts.stream().map(Attempt::attempt).toList());
        // Backoff with jitter: between half and all of 400 ms * 2^(attempt - 1); it never comes early.
        long firstGap = Duration.between(Flaky.attempts.get(0).at(), Flaky.attempts.get(1).at()).toMillis();
        long secondGap = Duration.between(Flaky.attempts.get(1).at(), Flaky.attempts.get(2).at()).toMillis();
        assertTrue(firstGap >= 200, "first retry after " + firstGap + " ms");
        assertTrue(secondGap >= 400, "second retry after " + secondGap + " ms");
        assertEquals(3, dead.attempts());
        assertEquals("java.lang.IllegalStateException: downstream unavailable", dead.lastError());
        assertEquals("\"payload\"", dead.payload());
        assertEquals(1, scheduler.stats("flaky").dead());
        assertEquals(List.of("flaky:1"), scheduler.deadLetters("flaky", 10).stream().map(JobInfo::id).toList());

        Flaky.healed.set(true);
        assertTrue(scheduler.requeue("flaky", "flaky:1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("flaky", "flaky:1").isEmpty());
        assertEquals(4, Flaky.attempts.size());
        assertEquals(1, Flaky.attempts.get(3).attempt(), "a requeued job starts its attempts again");
        assertEquals(0, scheduler.stats("flaky").dead());
    }

    @Test
    void anUnreadablePayloadIsDeadLetteredWithoutRetries() {
        try (LoggedMessages logged = LoggedMessages.of("io.quarkiverse.delayedjobs.runtime.worker", Level.WARNING)) {
            scheduler.schedule("typed", "typed:ok", new Reading(21.5), Duration.ZERO);
            scheduler.schedule("typed", "typed:bad", List.of("not", "a", "reading"), Duration.ZERO);

            JobInfo dead = await().atMost(Duration.ofSeconds(10))
                    .until(() -> scheduler.find("typed", "typed:bad").filter(j -> j.state() == JobInfo.State.DEAD),
                            found -> found.isPresent())
                    .orElseThrow();
            assertEquals(1, dead.attempts());
            assertTrue(dead.lastError().contains("payload cannot be read as"), dead.lastError());
            // One line, Jackson's message in it, without a stack trace: a backlog an upgrade cannot read would flood
            // the log with one per job.
            await().atMost(Duration.ofSeconds(5)).until(() -> logged.messages().stream()
                    .anyMatch(m -> m.contains("typed:bad") && m.contains("moved to the dead letters: ")
                            && m.contains("payload cannot be read as")));
            assertEquals(List.of(), logged.withTrace());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("typed", "typed:ok").isEmpty());
        assertEquals(List.of(new Reading(21.5)), Typed.received);
    }

    @Test
    void theErrorOfAFailedStageIsItsCauseNotTheCompletionExceptionAroundIt() {
        scheduler.schedule("async", "async:1", null, Duration.ZERO);
        JobInfo dead = await().atMost(Duration.ofSeconds(10))
                .until(() -> scheduler.find("async", "async:1").filter(j -> j.state() == JobInfo.State.DEAD),
                        found -> found.isPresent())
                .orElseThrow();
        assertEquals("java.lang.IllegalStateException: mail server down", dead.lastError());
    }

    @Test
    void aDeadLetterConflictsAsAnyJobWithItsId() {
        scheduler.schedule("typed", "typed:again", "not a reading", Duration.ZERO);
        JobInfo dead = await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("typed", "typed:again")
                .filter(j -> j.state() == JobInfo.State.DEAD), Optional::isPresent).orElseThrow();
        // KEEP, the default: first writer wins, and the dead letter stays with its error.
        assertEquals(ScheduleResult.KEPT,
                scheduler.schedule("typed", "typed:again", new Reading(3), Duration.ofDays(1)));
        assertEquals(Optional.of(dead), scheduler.find("typed", "typed:again"));
        // KEEP_EARLIER compares with the due time it was scheduled for, in the past.
        assertEquals(ScheduleResult.KEPT, scheduler.schedule("typed", "typed:again", new Reading(3),
                Instant.now().plus(Duration.ofDays(1)), OnConflict.KEEP_EARLIER));
        assertEquals(Optional.of(dead), scheduler.find("typed", "typed:again"));
        assertEquals(ScheduleResult.REPLACED, scheduler.schedule("typed", "typed:again", new Reading(3),
                Instant.now().plus(Duration.ofDays(1)), OnConflict.REPLACE));
        JobInfo info = scheduler.find("typed", "typed:again").orElseThrow();
        assertEquals(JobInfo.State.PENDING, info.state());
        assertEquals(null, info.lastError());
        assertEquals(0, info.attempts());
        assertEquals(List.of(), scheduler.deadLetters("typed", 10).stream().map(JobInfo::id)
                .filter("typed:again"::equals).toList());
        assertTrue(scheduler.cancel("typed", "typed:again"));

        // A recurring job over a dead letter replaces it too.
        scheduler.schedule("typed", "typed:cron", "not a reading", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("typed", "typed:cron")
                .filter(j -> j.state() == JobInfo.State.DEAD).isPresent());
        assertEquals(ScheduleResult.REPLACED,
                scheduler.recurring("typed", "typed:cron", "0 9 * * MON", ZoneOffset.UTC, new Reading(1)));
        assertEquals(JobInfo.State.PENDING, scheduler.find("typed", "typed:cron").orElseThrow().state());
        assertTrue(scheduler.cancel("typed", "typed:cron"));
    }
}
