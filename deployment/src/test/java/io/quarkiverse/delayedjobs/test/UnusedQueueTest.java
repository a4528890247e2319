package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Looking at a queue that nobody scheduled to (find, stats, dead letters, cancel, reschedule, requeue) finds nothing
 * and records nothing in Redis: a mistyped name in the Dev UI, or a queue that a later deployment configures with
 * another shard count, is not pinned to this instance's count. Jobs are still looked for when no count is recorded
 * (Redis lost it after they were written). A queue whose count is recorded is read as before, and one recorded with
 * another count, or with something that is no count, is refused as a schedule would be.
 */
public class UnusedQueueTest {

    static final String URL = RedisTestServer.sharedUrl();

    static {
        assertEquals("+OK", RedisTestServer.command(URL, "SET", "unused:{other-count}:shards", "4"));
        assertEquals("+OK", RedisTestServer.command(URL, "SET", "unused:{no-count}:shards", "8 "));
    }

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "unused");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Test
    void lookingAtAnUnusedQueueRecordsNothing() {
        assertEquals(Optional.empty(), scheduler.find("never-used", "job-1"));
        assertEquals(new QueueStats(0, 0, 0, Optional.empty(), Duration.ZERO), scheduler.stats("never-used"));
        assertEquals(0, scheduler.deadLetters("never-used", 10).size());
        assertFalse(scheduler.cancel("never-used", "job-1"));
        assertFalse(scheduler.reschedule("never-used", "job-1", Duration.ofMinutes(1)));
        assertFalse(scheduler.requeue("never-used", "job-1"));
        assertEquals(":0", RedisTestServer.command(URL, "EXISTS", "unused:{never-used}:shards"));
    }

    @Test
    void aRecordedQueueIsReadWithItsCount() {
        scheduler.schedule("used", "job-1", "payload", Duration.ofHours(1));
        // Forgets that this instance checked the count: the next read learns it from Redis.
        store.checkShardCountsAgain();
        Optional<JobInfo> found = scheduler.find("used", "job-1");
        assertTrue(found.isPresent());
        assertEquals(JobInfo.State.PENDING, found.get().state());
        assertEquals(1, scheduler.stats("used").pending());
        assertTrue(scheduler.cancel("used", "job-1"));
    }

    @Test
    void aJobWrittenAfterTheCountWasLostIsFoundAndCancelled() {
        scheduler.schedule("lost-count", "job-1", "payload", Duration.ofHours(1));
        // Redis lost the count, not the job (as when an instance that had checked the count before schedules after a
        // restart of Redis without its data); this instance forgets its check, as another one would not have it.
        assertEquals(":1", RedisTestServer.command(URL, "DEL", "unused:{lost-count}:shards"));
        store.checkShardCountsAgain();
        assertTrue(scheduler.find("lost-count", "job-1").isPresent());
        assertEquals(1, scheduler.stats("lost-count").pending());
        assertTrue(scheduler.cancel("lost-count", "job-1"));
        assertEquals(0, scheduler.stats("lost-count").pending());
        assertEquals(":0", RedisTestServer.command(URL, "EXISTS", "unused:{lost-count}:shards"));
    }

    @Test
    void aQueueRecordedWithAnotherCountIsRefused() {
        DelayedJobsException e = assertThrows(DelayedJobsException.class,
                () -> scheduler.find("other-count", "job-1"));
        assertTrue(e.getMessage().contains("Queue 'other-count' has 4 shards recorded in Redis"), e.getMessage());
        assertEquals("4", RedisTestServer.command(URL, "GET", "unused:{other-count}:shards"));
    }

    @Test
    void aQueueWhoseRecordIsNoCountIsRefusedWithTheKeyToFix() {
        // Written by hand or by a producer in another language: not read as a number, nor as 8.
        DelayedJobsException e = assertThrows(DelayedJobsException.class, () -> scheduler.find("no-count", "job-1"));
        assertEquals("Queue 'no-count' has '8 ' recorded in Redis as its shard count (key unused:{no-count}:shards),"
                + " which is no whole number from 1 to 1024: set that key to the count the queue's jobs were stored"
                + " with (quarkus.delayed-jobs.queues.\"no-count\".shards, 8 here)", e.getMessage());
    }
}
