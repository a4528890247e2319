package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;

/**
 * A pending job is a member of its shard's sorted set holding id and payload, found from its id through a small
 * index hash and its score (see common.lua). These cases stress that look-up: many jobs at one millisecond (members
 * sharing a score), ids of any bytes and length, due times too late for the bucket to fit in the score, a job
 * waiting for its retry, whose member also carries its original due time and attempts, and jobs claimed together,
 * whose due times claim.lua reads from their scores.
 */
public class PendingStorageTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, Failing.class, Together.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "pending")
            .overrideConfigKey("quarkus.delayed-jobs.queues.failing.max-attempts", "5")
            .overrideConfigKey("quarkus.delayed-jobs.queues.failing.backoff.initial", "2s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.failing.backoff.max", "2s");

    static final Instant T1 = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.MILLIS);
    static final Instant T2 = T1.plus(1, ChronoUnit.HOURS);

    /** Fails every first attempt; records the due time the second attempt sees. */
    static class Failing {
        static final Map<String, Instant> dueAtOfSecondAttempt = new ConcurrentHashMap<>();

        @Delayed("failing")
        void run(String payload, JobContext context) {
            if (context.attempt() == 1) {
                throw new IllegalStateException("first attempt");
            }
            dueAtOfSecondAttempt.put(context.id(), context.dueAt());
        }
    }

    /** Records the due time each job sees. */
    static class Together {
        static final Map<String, Instant> dueAt = new ConcurrentHashMap<>();

        @Delayed("together")
        void run(String payload, JobContext context) {
            dueAt.put(context.id(), context.dueAt());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Test
    void jobsDueAtOneMillisecondAreFoundCancelledAndMovedOneByOne() {
        String queue = "same-ms";
        int n = 3000;
        // 375 jobs per shard at one time: many share an index hash, and so a score.
        Uni.join().all(IntStream.range(0, n)
                .mapToObj(i -> reactive.schedule(queue, "job-" + i, "payload of " + i, T1)).toList())
                .andFailFast().await().atMost(Duration.ofSeconds(30));
        for (int i = 0; i < n; i += 7) {
            assertTrue(scheduler.cancel(queue, "job-" + i), "cancel job-" + i);
        }
        for (int i = 1; i < n; i += 11) {
            if (i % 7 != 0) {
                assertTrue(scheduler.reschedule(queue, "job-" + i, T2), "reschedule job-" + i);
            }
        }
        int pending = 0;
        for (int i = 0; i < n; i++) {
            Optional<JobInfo> found = scheduler.find(queue, "job-" + i);
            if (i % 7 == 0) {
                assertTrue(found.isEmpty(), "job-" + i + " was cancelled");
                continue;
            }
            pending++;
            String id = "job-" + i;
            JobInfo info = found.orElseThrow(() -> new AssertionError(id + " lost"));
            assertEquals(JobInfo.State.PENDING, info.state());
            assertEquals("\"payload of " + i + "\"", info.payload(), "payload of job-" + i);
            assertEquals(i % 11 == 1 ? T2 : T1, info.dueAt(), "due time of job-" + i);
        }
        assertEquals(pending, scheduler.stats(queue).pending());
    }

    @Test
    void idsOfAnyCharactersAndLengthKeepTheirPayload() {
        String queue = "odd-ids";
        String longest = "é".repeat(256);
        assertEquals(512, longest.getBytes(StandardCharsets.UTF_8).length);
        List<String> ids = List.of("x", "a|b|c", "nul\u0000inside", "line\nbreak", "ünïcødé ✓", longest);
        for (String id : ids) {
            scheduler.schedule(queue, id, "for " + id, T1);
        }
        for (String id : ids) {
            JobInfo info = scheduler.find(queue, id).orElseThrow(() -> new AssertionError("lost " + id));
            assertEquals(id, info.id());
            assertEquals("\"for " + id.replace("\u0000", "\\u0000").replace("\n", "\\n") + "\"", info.payload());
            assertEquals(T1, info.dueAt());
        }
        for (String id : ids) {
            assertTrue(scheduler.cancel(queue, id), "cancel " + id);
            assertTrue(scheduler.find(queue, id).isEmpty(), id + " cancelled");
        }
        assertEquals(0, scheduler.stats(queue).pending());
    }

    @Test
    void theLatestDueTimesAreStoredMovedAndCancelled() {
        String queue = "far";
        Instant last = Instant.parse("9999-12-31T23:59:59.999Z");
        Instant earlier = Instant.parse("5000-01-01T00:00:00.001Z");
        scheduler.schedule(queue, "far:1", "one", last);
        scheduler.schedule(queue, "far:2", "two", last);
        assertEquals(last, scheduler.find(queue, "far:1").orElseThrow().dueAt());
        assertTrue(scheduler.reschedule(queue, "far:2", earlier));
        assertEquals(earlier, scheduler.find(queue, "far:2").orElseThrow().dueAt());
        assertEquals(earlier, scheduler.stats(queue).nextDueAt().orElseThrow());
        assertTrue(scheduler.cancel(queue, "far:1"));
        assertTrue(scheduler.cancel(queue, "far:2"));
        assertEquals(0, scheduler.stats(queue).pending());
    }

    @Test
    void aJobWaitingForItsRetryKeepsItsDueTimeAndAttempts() {
        Instant due = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        scheduler.schedule("failing", "failing:1", "moved", due);
        scheduler.schedule("failing", "failing:2", "retried", due);
        // Between attempts (1 to 2 s of backoff), find shows the retry's time as dueAt and one attempt.
        JobInfo waiting = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> scheduler.find("failing", "failing:1"),
                        found -> found.filter(j -> j.state() == JobInfo.State.PENDING && j.attempts() == 1).isPresent())
                .orElseThrow();
        assertTrue(waiting.dueAt().isAfter(due), "retry due at " + waiting.dueAt());
        assertEquals("\"moved\"", waiting.payload());
        assertEquals("java.lang.IllegalStateException: first attempt", waiting.lastError());

        // Moving it keeps its attempts; cancelling it leaves nothing.
        assertTrue(scheduler.reschedule("failing", "failing:1", T2));
        JobInfo moved = scheduler.find("failing", "failing:1").orElseThrow();
        assertEquals(T2, moved.dueAt());
        assertEquals(1, moved.attempts());
        assertTrue(scheduler.cancel("failing", "failing:1"));
        assertFalse(scheduler.find("failing", "failing:1").isPresent());

        // The second attempt still sees the due time it was scheduled for, not the retry's.
        await().atMost(Duration.ofSeconds(10)).until(() -> Failing.dueAtOfSecondAttempt.containsKey("failing:2"));
        assertEquals(due, Failing.dueAtOfSecondAttempt.get("failing:2"));
        assertFalse(Failing.dueAtOfSecondAttempt.containsKey("failing:1"));
    }

    @Test
    void jobsClaimedTogetherEachSeeTheirOwnDueTime() {
        // Due in the past at a millisecond each (two per millisecond for some), scheduled faster than they run, so
        // that claims carry many jobs of different due times.
        Instant first = Instant.now().minus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS);
        int n = 400;
        Map<String, Instant> scheduled = new ConcurrentHashMap<>();
        Uni.join().all(IntStream.range(0, n).mapToObj(i -> {
            Instant due = first.plusMillis(i - i / 3);
            scheduled.put("together:" + i, due);
            return reactive.schedule("together", "together:" + i, "p" + i, due);
        }).toList()).andFailFast().await().atMost(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(30)).until(() -> Together.dueAt.size() == n);
        List<String> wrong = scheduled.keySet().stream()
                .filter(id -> !scheduled.get(id).equals(Together.dueAt.get(id))).sorted().toList();
        assertEquals(List.of(), wrong, "jobs that saw another due time than their own");
    }
}
