package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.mutiny.redis.client.Response;

/**
 * Jobs parked at the latest due time (9999-12-31T23:59:59.999Z, past 2^45 ms, where a score has no room for the whole
 * bucket) share their score 32 ways rather than all one: a look-up by id (find, cancel, reschedule, a KEEP schedule)
 * reads the jobs that share its score, and read every parked job of the shard before (20,000 of them took 15 ms of
 * Redis per look-up; found by a review). A job stored with the score of before is still found.
 */
public class FarFutureLookupTest {

    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");
    static final QueueKeys KEYS = new QueueKeys("far-future", "parked", 1);
    static final QueueKeys LEGACY = new QueueKeys("far-future", "legacy", 1);

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "far-future")
            .overrideConfigKey("quarkus.delayed-jobs.queues.parked.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.legacy.shards", "1");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    RedisDataSource redis;

    @Test
    void parkedJobsShareTheirScore32Ways() {
        for (int i = 0; i < 640; i++) {
            scheduler.schedule("parked", "job-" + i, "p", LATEST);
        }
        Set<String> scores = new HashSet<>();
        Response due = redis.execute("ZRANGE", KEYS.shard(0).get(0), "0", "-1", "WITHSCORES");
        for (Response memberAndScore : due) {
            scores.add(memberAndScore.get(1).toString());
        }
        assertEquals(32, scores.size(), "distinct scores of 640 jobs due at " + LATEST);
        for (int i = 0; i < 640; i += 37) {
            JobInfo job = scheduler.find("parked", "job-" + i).orElseThrow();
            assertEquals(LATEST, job.dueAt());
        }
        assertTrue(scheduler.cancel("parked", "job-5"));
        assertTrue(scheduler.find("parked", "job-5").isEmpty());
    }

    @Test
    void aJobStoredWithTheScoreOfBeforeIsFound() {
        scheduler.schedule("legacy", "first", "p", LATEST); // records the queue's shard count
        assertTrue(scheduler.cancel("legacy", "first"));
        String id = "stored-before";
        long time = LATEST.toEpochMilli();
        // As the scripts stored it before: 256 x time alone, the short form of the member (id length, id, payload).
        String member = "\u0000" + (char) id.length() + id + "\"old\"";
        redis.execute("ZADD", LEGACY.shard(0).get(0), Long.toString(time * 256), member);
        redis.execute("HSET", LEGACY.shard(0).get(7) + ":" + QueueKeys.bucketOf(id), id, Long.toString(time));
        assertEquals("\"old\"", scheduler.find("legacy", id).orElseThrow().payload());
        assertTrue(scheduler.cancel("legacy", id));
        assertEquals(0, redis.execute("ZCARD", LEGACY.shard(0).get(0)).toLong());
    }
}
