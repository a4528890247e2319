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

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A schedule call made while Redis does not answer fails within twice {@code redis-timeout} of when it was made
 * (the call before it in its shard times out, then its own, or it fails unsent once it waited the timeout), however
 * many schedule calls of its shard were made at the same moment: before, the 320 jobs of this test went in five calls
 * of its shard one after the other, each timing out in turn, and the last failed after 6 s. Found by a review.
 */
public class ScheduleTimeoutBehindBatchesTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "timeout-behind-batches")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.stalled.shards", "1");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Test
    void everyScheduleCallFailsAboutRedisTimeoutAfterItWasMade() throws Exception {
        scheduler.schedule("stalled", "warm-up", "p", Duration.ofMinutes(1)); // shard count recorded, script loaded
        String url = RedisTestServer.sharedUrl();
        // Redis holds every write for 8 s: the schedule calls go unanswered.
        assertEquals("+OK", RedisTestServer.command(url, "CLIENT", "PAUSE", "8000", "WRITE"));
        try {
            int jobs = 320;
            List<CompletableFuture<Long>> failedAfterMs = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                long made = System.nanoTime();
                failedAfterMs.add(reactive.schedule("stalled", "job-" + i, "p", Duration.ofMinutes(1))
                        .subscribeAsCompletionStage()
                        .handle((result, failure) -> {
                            assertTrue(failure instanceof DelayedJobsException, String.valueOf(failure));
                            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - made);
                        }));
            }
            long slowest = 0;
            for (CompletableFuture<Long> f : failedAfterMs) {
                slowest = Math.max(slowest, f.get(30, TimeUnit.SECONDS));
            }
            assertTrue(slowest < 3_000, "with redis-timeout 1s, a schedule call failed only " + slowest
                    + " ms after it was made (it waited behind the calls of its shard, each timing out in turn)");
        } finally {
            RedisTestServer.command(url, "CLIENT", "UNPAUSE");
        }
    }
}
