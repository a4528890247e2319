package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.redis.client.Response;

/**
 * Every producer operation and conflict policy, on a queue this application has no handler for (allowed: producers
 * and consumers are often different deployments), so nothing runs.
 */
public class SchedulerOperationsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "operations")
            .overrideConfigKey("quarkus.delayed-jobs.queues.one-shard.shards", "1");

    static final String QUEUE = "parked";
    static final Instant T1 = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.MILLIS);
    static final Instant T2 = T1.plus(1, ChronoUnit.HOURS);

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Inject
    RedisDataSource redis;

    @Test
    void keepIsTheDefaultAndFirstWriterWins() {
        assertEquals(ScheduleResult.CREATED, scheduler.schedule(QUEUE, "keep", "first", T2));
        assertEquals(ScheduleResult.KEPT, scheduler.schedule(QUEUE, "keep", "second", T1));
        JobInfo info = scheduler.find(QUEUE, "keep").orElseThrow();
        assertEquals("\"first\"", info.payload());
        assertEquals(T2, info.dueAt());
    }

    @Test
    void replaceStoresTheNewPayloadAndDueTime() {
        scheduler.schedule(QUEUE, "replace", "first", T1);
        assertEquals(ScheduleResult.REPLACED, scheduler.schedule(QUEUE, "replace", "second", T2, OnConflict.REPLACE));
        JobInfo info = scheduler.find(QUEUE, "replace").orElseThrow();
        assertEquals("\"second\"", info.payload());
        assertEquals(T2, info.dueAt());
    }

    @Test
    void keepEarlierKeepsWhicheverIsEarlierWithItsPayload() {
        scheduler.schedule(QUEUE, "earlier", "late", T2);
        assertEquals(ScheduleResult.REPLACED, scheduler.schedule(QUEUE, "earlier", "early", T1, OnConflict.KEEP_EARLIER));
        assertEquals(ScheduleResult.KEPT, scheduler.schedule(QUEUE, "earlier", "later again", T2, OnConflict.KEEP_EARLIER));
        JobInfo info = scheduler.find(QUEUE, "earlier").orElseThrow();
        assertEquals("\"early\"", info.payload());
        assertEquals(T1, info.dueAt());
    }

    @Test
    void keepLaterKeepsWhicheverIsLaterWithItsPayload() {
        scheduler.schedule(QUEUE, "later", "early", T1);
        assertEquals(ScheduleResult.REPLACED, scheduler.schedule(QUEUE, "later", "late", T2, OnConflict.KEEP_LATER));
        assertEquals(ScheduleResult.KEPT, scheduler.schedule(QUEUE, "later", "earlier again", T1, OnConflict.KEEP_LATER));
        JobInfo info = scheduler.find(QUEUE, "later").orElseThrow();
        assertEquals("\"late\"", info.payload());
        assertEquals(T2, info.dueAt());
    }

    @Test
    void findShowsAPendingJob() {
        scheduler.schedule(QUEUE, "found", new Order(7, "book"), T1);
        JobInfo info = scheduler.find(QUEUE, "found").orElseThrow();
        assertEquals(QUEUE, info.queue());
        assertEquals("found", info.id());
        assertEquals(JobInfo.State.PENDING, info.state());
        assertEquals(T1, info.dueAt());
        assertEquals(0, info.attempts());
        assertNull(info.lastError());
        assertNull(info.cron());
        assertEquals("{\"number\":7,\"item\":\"book\"}", info.payload());
        assertEquals(Optional.empty(), scheduler.find(QUEUE, "never-scheduled"));
    }

    @Test
    void aDueTimeBetweenTwoMillisecondsIsStoredAtTheLaterOne() {
        // Due times are whole ms: rounding down would make the job due before the time asked for.
        scheduler.schedule(QUEUE, "sub-ms", "p", T1.plusNanos(900_000));
        assertEquals(T1.plusMillis(1), scheduler.find(QUEUE, "sub-ms").orElseThrow().dueAt());
        assertTrue(scheduler.reschedule(QUEUE, "sub-ms", T1.plusNanos(1)));
        assertEquals(T1.plusMillis(1), scheduler.find(QUEUE, "sub-ms").orElseThrow().dueAt());
        assertTrue(scheduler.reschedule(QUEUE, "sub-ms", T1));
        assertEquals(T1, scheduler.find(QUEUE, "sub-ms").orElseThrow().dueAt());
    }

    public record Order(int number, String item) {
    }

    @Test
    void cancelRemovesTheJobOnce() {
        scheduler.schedule(QUEUE, "cancelled", "x", T1);
        assertTrue(scheduler.cancel(QUEUE, "cancelled"));
        assertFalse(scheduler.cancel(QUEUE, "cancelled"));
        assertEquals(Optional.empty(), scheduler.find(QUEUE, "cancelled"));
        assertEquals(ScheduleResult.CREATED, scheduler.schedule(QUEUE, "cancelled", "again", T1));
    }

    @Test
    void rescheduleMovesAPendingJobOnly() {
        scheduler.schedule(QUEUE, "moved", "x", T1);
        assertTrue(scheduler.reschedule(QUEUE, "moved", T2));
        assertEquals(T2, scheduler.find(QUEUE, "moved").orElseThrow().dueAt());
        assertFalse(scheduler.reschedule(QUEUE, "not-there", T2));
    }

    @Test
    void aDelayIsMeasuredFromTheRedisClock() {
        Instant before = Instant.now();
        scheduler.schedule(QUEUE, "delayed", "x", Duration.ofHours(2));
        Instant due = scheduler.find(QUEUE, "delayed").orElseThrow().dueAt();
        // Redis runs on this machine, so its clock and ours agree to well under a second.
        assertTrue(Math.abs(Duration.between(before.plus(Duration.ofHours(2)), due).toMillis()) < 1000, due::toString);
        assertTrue(scheduler.reschedule(QUEUE, "delayed", Duration.ofHours(3)));
        Instant moved = scheduler.find(QUEUE, "delayed").orElseThrow().dueAt();
        assertTrue(Math.abs(Duration.between(before.plus(Duration.ofHours(3)), moved).toMillis()) < 1000, moved::toString);
    }

    /** The Redis clock now, in µs. */
    private long redisMicros() {
        Response time = redis.execute("TIME");
        return time.get(0).toLong() * 1_000_000 + time.get(1).toLong();
    }

    @Test
    void aDelayNeverEndsBeforeItHasPassedByTheRedisClockAndNoDelayIsDueAtOnce() {
        // Redis reads its clock in µs: a delay added to the whole ms alone would end up to 1 ms before it passed. Each
        // call reaches Redis after the clock was read, often within the same ms.
        for (int i = 0; i < 100; i++) {
            String id = "whole-delay-" + i;
            long before = redisMicros();
            scheduler.schedule(QUEUE, id, "x", Duration.ofSeconds(60));
            long due = scheduler.find(QUEUE, id).orElseThrow().dueAt().toEpochMilli() * 1000;
            assertTrue(due >= before + 60_000_000, id + " is due " + (before + 60_000_000 - due) + " µs early");
            before = redisMicros();
            assertTrue(scheduler.reschedule(QUEUE, id, Duration.ofSeconds(90)));
            due = scheduler.find(QUEUE, id).orElseThrow().dueAt().toEpochMilli() * 1000;
            assertTrue(due >= before + 90_000_000, id + " was moved " + (before + 90_000_000 - due) + " µs early");

            // No delay: due at once, not at the next ms (a claim in the same ms takes it).
            String now = "no-delay-" + i;
            scheduler.schedule(QUEUE, now, "x", Duration.ZERO);
            long after = redisMicros();
            due = scheduler.find(QUEUE, now).orElseThrow().dueAt().toEpochMilli() * 1000;
            assertTrue(due <= after, now + " is due " + (due - after) + " µs after the schedule call returned");
        }
    }

    @Test
    void aDelayCountsFromTheCallNotFromWhenRedisGetsTheJob() {
        // A shard's first delays are measured by the script, and a quick answer tells this instance the Redis clock
        // (the first call of a JVM is rarely quick).
        for (int i = 0; i < 50; i++) {
            scheduler.schedule("one-shard", "clock-read-" + i, "x", Duration.ofSeconds(60));
        }
        long before = redisMicros();
        // Redis takes no command for 300 ms: the next call waits for it, as behind a busy server or connection.
        assertEquals("+OK", RedisTestServer.command(RedisTestServer.sharedUrl(), "CLIENT", "PAUSE", "300", "ALL"));
        scheduler.schedule("one-shard", "held-up", "x", Duration.ofSeconds(60));
        long after = redisMicros();
        assertTrue(after - before >= 300_000, "the call was not held up: " + (after - before) + " µs");
        long due = scheduler.find("one-shard", "held-up").orElseThrow().dueAt().toEpochMilli() * 1000;
        assertTrue(due >= before + 60_000_000, "due " + (before + 60_000_000 - due) + " µs early");
        assertTrue(due < before + 60_100_000, "due " + (due - before - 60_000_000) + " µs after the call's minute");
    }

    @Test
    void statsCountPendingJobsOverAllShards() {
        String queue = "counted";
        for (int i = 0; i < 20; i++) {
            scheduler.schedule(queue, "job-" + i, i, T1.plusSeconds(i));
        }
        scheduler.schedule(queue, "overdue", "x", Instant.now().minusSeconds(60));
        QueueStats stats = scheduler.stats(queue);
        assertEquals(21, stats.pending());
        assertEquals(0, stats.running());
        assertEquals(0, stats.dead());
        assertTrue(stats.nextDueAt().orElseThrow().isBefore(Instant.now().minusSeconds(59)));
        assertTrue(stats.lag().compareTo(Duration.ofSeconds(59)) >= 0, stats.lag()::toString);

        QueueStats empty = scheduler.stats("empty-queue");
        assertEquals(0, empty.pending());
        assertEquals(Optional.empty(), empty.nextDueAt());
        assertEquals(Duration.ZERO, empty.lag());
    }

    @Test
    void scriptsAreLoadedAgainWhenRedisForgotThem() {
        assertEquals("+OK", RedisTestServer.command(RedisTestServer.sharedUrl(), "SCRIPT", "FLUSH"));
        assertEquals(ScheduleResult.CREATED, scheduler.schedule(QUEUE, "after-flush", "x", T1));
        assertEquals(JobInfo.State.PENDING, scheduler.find(QUEUE, "after-flush").orElseThrow().state());
    }

    @Test
    void manyConcurrentSchedulesOfOneShardEachGetTheirOwnResult() {
        // 300 calls at once: the jobs of a shard that wait for its call under way go together in the next one.
        List<Uni<ScheduleResult>> calls = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            calls.add(reactive.schedule("burst", "job-" + (i % 100), "payload-" + i, T1.plusSeconds(i)));
        }
        List<ScheduleResult> results = Uni.join().all(calls).andFailFast().await().atMost(Duration.ofSeconds(30));
        for (int i = 0; i < 300; i++) {
            assertEquals(i < 100 ? ScheduleResult.CREATED : ScheduleResult.KEPT, results.get(i), "call " + i);
        }
        assertEquals(100, scheduler.stats("burst").pending());
        assertEquals("\"payload-42\"", scheduler.find("burst", "job-42").orElseThrow().payload());
        assertEquals(T1.plusSeconds(42), scheduler.find("burst", "job-42").orElseThrow().dueAt());
    }

    @Test
    void schedulesOfOneIdApplyInTheOrderMadeWhileTheQueueIsFirstUsed() {
        // The first call of a queue checks its shard count; calls made meanwhile, and those made as the check ends,
        // must still reach Redis in the order they were made.
        for (int q = 0; q < 40; q++) {
            String queue = "first-use-" + q;
            List<Uni<ScheduleResult>> calls = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                calls.add(reactive.schedule(queue, "job-" + (i % 4), i, T1.plusSeconds(i), OnConflict.REPLACE));
            }
            List<ScheduleResult> results = Uni.join().all(calls).andFailFast().await().atMost(Duration.ofSeconds(30));
            for (int i = 0; i < 200; i++) {
                assertEquals(i < 4 ? ScheduleResult.CREATED : ScheduleResult.REPLACED, results.get(i),
                        queue + " call " + i);
            }
            assertEquals("196", scheduler.find(queue, "job-0").orElseThrow().payload(), queue);
        }
    }

    @Test
    void theReactiveSchedulerDoesTheSame() {
        assertEquals(ScheduleResult.CREATED,
                reactive.schedule(QUEUE, "reactive", "r", T1).await().atMost(Duration.ofSeconds(5)));
        assertEquals(JobInfo.State.PENDING,
                reactive.find(QUEUE, "reactive").await().atMost(Duration.ofSeconds(5)).orElseThrow().state());
        assertTrue(reactive.cancel(QUEUE, "reactive").await().atMost(Duration.ofSeconds(5)));
    }
}
