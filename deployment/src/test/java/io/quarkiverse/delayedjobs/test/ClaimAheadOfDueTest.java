package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClaimBatch;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClockReading;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;

/**
 * With {@code claim-ahead}, jobs due one by one are claimed a stretch of time at once and each starts at its due
 * time, never before; a job that a producer cancels, moves or replaces while its worker holds it does not start, and
 * one held too close to its due time to be stopped is not moved.
 */
public class ClaimAheadOfDueTest {

    private static final String PREFIX = "claim-ahead-of-due";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Held.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", PREFIX)
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.concurrency", "2")
            // Claimed from 200 ms before the earliest job is due, the jobs due within 1 s.
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.claim-ahead", "1s")
            // A retry 1 to 2 s after a failure: long enough to see it pending before it is claimed.
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.backoff.initial", "2s");

    record Start(String payload, Instant dueAt, Instant startedAt, String deliveryId) {
    }

    static class Held {
        static final Map<String, List<Start>> starts = new ConcurrentHashMap<>();

        @Delayed("held")
        void run(String payload, JobContext context) {
            starts.computeIfAbsent(context.id(), id -> new CopyOnWriteArrayList<>())
                    .add(new Start(payload, context.dueAt(), Instant.now(), context.deliveryId()));
            if (payload.equals("fail-once") && context.attempt() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    RedisDataSource redis;

    @Inject
    JobStore store;

    @Test
    void jobsDueOneByOneAreClaimedTogetherAndEachStartsAtItsDueTime() {
        Instant first = Instant.now().plusSeconds(1).truncatedTo(ChronoUnit.MILLIS);
        int jobs = 20;
        for (int i = 0; i < jobs; i++) {
            scheduler.schedule("held", "tick-" + i, "tick", first.plusMillis(10L * i));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> started("tick-") == jobs);
        for (int i = 0; i < jobs; i++) {
            Start start = Held.starts.get("tick-" + i).get(0);
            assertEquals(first.plusMillis(10L * i).toEpochMilli(), start.dueAt().toEpochMilli());
            assertTrue(!start.startedAt().isBefore(start.dueAt()),
                    "tick-" + i + " started at " + start.startedAt() + ", before its due time " + start.dueAt());
        }
        // One claim per job when claimed at their due times; the 190 ms they span fit in one stretch. A delivery's id
        // ends with its token, '<claim number>.<k>'.
        long claims = IntStream.range(0, jobs).mapToObj(i -> Held.starts.get("tick-" + i).get(0).deliveryId())
                .map(id -> id.substring(id.lastIndexOf('/') + 1, id.lastIndexOf('.'))).distinct().count();
        assertTrue(claims <= 3, jobs + " jobs due 10 ms apart took " + claims + " claims");
    }

    @Test
    void heldJobsAreTimedByTheFreshestReadingOfTheOneRedisServer() {
        scheduleHeld("timed", "x");
        // A claim whose own reading is from the epoch: on one server, the reading of the claim answered last (at least
        // the one that just held 'timed') bounds the clock instead. RedisClusterTest checks that nodes do not.
        ClaimBatch stale = new ClaimBatch(new ClockReading(0, System.nanoTime(), System.nanoTime()), -1, false, List.of(),
                List.of());
        long boundMicros = store.redisClockAtLeast(stale);
        Instant heldAt = Instant.now().minusSeconds(5);
        assertTrue(boundMicros > heldAt.toEpochMilli() * 1000, "the clock bound was " + boundMicros + " µs");
    }

    @Test
    void heldJobsTakeNoHandlerWhileTheyWait() {
        Instant later = Instant.now().plusMillis(900);
        for (int i = 0; i < 5; i++) {
            scheduler.schedule("held", "later-" + i, "x", later);
        }
        // The claim of a job due now also takes the five, which then wait about 900 ms.
        scheduler.schedule("held", "first", "x", Duration.ZERO);
        for (int i = 0; i < 5; i++) {
            awaitHeld("later-" + i);
        }
        // Five held jobs, two handlers: a job due now still starts before them.
        scheduler.schedule("held", "now", "x", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Held.starts.containsKey("now"));
        assertEquals(0, started("later-"), "held jobs started before their due time");
        await().atMost(Duration.ofSeconds(10)).until(() -> started("later-") == 5);
    }

    @Test
    void aHeldJobThatIsCancelledDoesNotStart() {
        scheduleHeld("cancelled", "x");
        assertTrue(scheduler.cancel("held", "cancelled"));
        scheduler.schedule("held", "after-cancelled", "x", Duration.ofMillis(1500));
        // By the time this one starts, the cancelled job's due time is 500 ms past.
        await().atMost(Duration.ofSeconds(10)).until(() -> Held.starts.containsKey("after-cancelled"));
        assertEquals(null, Held.starts.get("cancelled"));
        assertTrue(scheduler.find("held", "cancelled").isEmpty());
    }

    @Test
    void aHeldJobThatIsMovedStartsOnceAtItsNewTime() {
        scheduleHeld("moved", "x");
        Instant newDue = Instant.now().plusMillis(1500).truncatedTo(ChronoUnit.MILLIS);
        assertTrue(scheduler.reschedule("held", "moved", newDue));
        assertEquals(JobInfo.State.PENDING, scheduler.find("held", "moved").orElseThrow().state());
        await().atMost(Duration.ofSeconds(10)).until(() -> Held.starts.containsKey("moved"));
        scheduler.schedule("held", "after-moved", "x", Duration.ofMillis(500));
        await().atMost(Duration.ofSeconds(10)).until(() -> Held.starts.containsKey("after-moved"));
        List<Start> starts = Held.starts.get("moved");
        assertEquals(1, starts.size(), "starts of the moved job: " + starts);
        assertEquals(newDue.toEpochMilli(), starts.get(0).dueAt().toEpochMilli());
        assertTrue(!starts.get(0).startedAt().isBefore(newDue), "started at " + starts.get(0).startedAt());
    }

    @Test
    void aHeldJobIsNotMovedSoCloseToItsDueTimeThatItCouldStartFirst() {
        scheduleHeld("too-late", "x");
        Instant due = scheduler.find("held", "too-late").orElseThrow().dueAt();
        // This host's clock is also Redis's: 30 ms before the due time, within the margin of 50.
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(1))
                .until(() -> !Instant.now().isBefore(due.minusMillis(30)));
        assertFalse(scheduler.reschedule("held", "too-late", due.plusSeconds(1)), "moved 30 ms before its due time");
        scheduler.schedule("held", "after-too-late", "x", due.plusMillis(1500));
        await().atMost(Duration.ofSeconds(10)).until(() -> Held.starts.containsKey("after-too-late"));
        List<Start> starts = Held.starts.get("too-late");
        assertEquals(1, starts.size(), "starts of the job: " + starts);
        assertEquals(due, starts.get(0).dueAt());
    }

    @Test
    void aHeldJobThatIsReplacedStartsOnceWithItsNewPayload() {
        scheduleHeld("replaced", "old");
        assertEquals(ScheduleResult.REPLACED,
                scheduler.schedule("held", "replaced", "new", Duration.ofMillis(1200), OnConflict.REPLACE));
        await().atMost(Duration.ofSeconds(10)).until(() -> Held.starts.containsKey("replaced"));
        scheduler.schedule("held", "after-replaced", "x", Duration.ofMillis(500));
        await().atMost(Duration.ofSeconds(10)).until(() -> Held.starts.containsKey("after-replaced"));
        List<Start> starts = Held.starts.get("replaced");
        assertEquals(List.of("new"), starts.stream().map(Start::payload).toList());
    }

    @Test
    void aRetryStartsNoEarlierThanItsTime() {
        scheduler.schedule("held", "retried", "fail-once", Duration.ZERO);
        JobInfo waiting = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> scheduler.find("held", "retried").orElse(null),
                        info -> info != null && info.state() == JobInfo.State.PENDING && info.attempts() == 1);
        Instant retryAt = waiting.dueAt();
        long callsBefore = RedisTestServer.scriptCalls(redis);
        await().atMost(Duration.ofSeconds(10)).until(() -> Held.starts.get("retried").size() == 2);
        Instant started = Held.starts.get("retried").get(1).startedAt();
        assertTrue(!started.isBefore(retryAt), "the retry started at " + started + ", before its time " + retryAt);
        // Waiting for the retry's time costs the claim at that time and little else, not a claim after claim.
        long calls = RedisTestServer.scriptCalls(redis) - callsBefore;
        assertTrue(calls < 20, "script calls while the retry waited: " + calls);
    }

    /**
     * Schedules a job due in 1 s, and a job due now whose claim takes it too, so that its worker holds it for about a
     * second; waits until it is held.
     */
    private void scheduleHeld(String id, String payload) {
        scheduler.schedule("held", id, payload, Duration.ofSeconds(1));
        scheduler.schedule("held", "trigger-" + id, "x", Duration.ZERO);
        awaitHeld(id);
    }

    /** Waits until a worker claimed the job ahead of its due time: it counts as running before it is due. */
    private void awaitHeld(String id) {
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                .until(() -> scheduler.find("held", id).map(JobInfo::state).orElse(null) == JobInfo.State.RUNNING);
        assertEquals(null, Held.starts.get(id), id + " started before it was due");
    }

    private long started(String idPrefix) {
        return Held.starts.keySet().stream().filter(id -> id.startsWith(idPrefix)).count();
    }
}
