package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Concurrent schedule calls of a queue share script calls: at most four calls are under way at once, and the jobs
 * scheduled meanwhile wait and go together, one call per shard. The application has no handler, so that every script
 * call Redis counts is a schedule call.
 */
public class ScheduleBatchingTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "schedule-batching");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Inject
    RedisDataSource redis;

    @Test
    void concurrentJobsWaitForTheCallsUnderWayAndGoOneCallPerShard() throws Exception {
        // The first call of a script may need its text sent after a NOSCRIPT: a second call the count would see.
        scheduler.schedule("batched", "warm-up", "p", Duration.ofMinutes(1));
        long before = RedisTestServer.scriptCalls(redis);
        // Redis holds every command for 2 s, so that all the jobs below are waiting here before a call comes back.
        assertEquals("+OK", RedisTestServer.command(RedisTestServer.sharedUrl(), "CLIENT", "PAUSE", "2000", "ALL"));
        List<CompletableFuture<ScheduleResult>> results = new ArrayList<>();
        // 64 jobs over the 8 shards, 7 to 9 each (crc32 of the ids).
        for (int i = 0; i < 64; i++) {
            results.add(reactive.schedule("batched", "job-" + i, "p", Duration.ofMinutes(1)).subscribeAsCompletionStage());
        }
        for (CompletableFuture<ScheduleResult> result : results) {
            assertEquals(ScheduleResult.CREATED, result.get(10, TimeUnit.SECONDS));
        }
        // The first jobs of four shards went at once, one call each; every other job waited for a call to come back.
        // Then each shard's waiting jobs went in one call: 4 + 8 calls. With a call under way per shard and no cap
        // per queue, the first jobs of all 8 shards would have gone alone: 8 + 8.
        assertEquals(12, RedisTestServer.scriptCalls(redis) - before);
        for (int i = 0; i < 64; i++) {
            assertTrue(scheduler.find("batched", "job-" + i).isPresent(), "job-" + i + " is missing");
        }
    }
}
