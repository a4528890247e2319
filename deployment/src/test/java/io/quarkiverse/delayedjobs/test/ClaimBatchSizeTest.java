package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code batch-size} bounds the jobs one claim of a shard takes ahead of their due time, as it bounds those due now: a
 * worker with quick handlers and room to hold many jobs (up to eight batches) takes a stretch of one shard in claims of
 * a batch, and no claim takes more than a batch of each kind.
 */
public class ClaimBatchSizeTest {

    private static final int BATCH_SIZE = 3;
    private static final int JOBS = 60;

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Quick.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "claim-batch-size")
            .overrideConfigKey("quarkus.delayed-jobs.queues.quick.batch-size", String.valueOf(BATCH_SIZE))
            .overrideConfigKey("quarkus.delayed-jobs.queues.quick.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.quick.claim-ahead", "1s");

    static class Quick {
        static final AtomicInteger done = new AtomicInteger();
        /** Jobs run per claim: a delivery id is {@code queue/shard/<claim>.<position>}. */
        static final Map<String, Integer> perClaim = new ConcurrentHashMap<>();

        @Delayed("quick")
        void run(String payload, JobContext context) {
            String token = context.deliveryId().substring(context.deliveryId().lastIndexOf('/') + 1);
            perClaim.merge(token.substring(0, token.indexOf('.')), 1, Integer::sum);
            done.incrementAndGet();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void noClaimTakesMoreThanABatchOfEachKind() {
        // The first jobs teach the worker that its handlers are quick, so that it has room to hold many.
        for (int i = 0; i < 2 * BATCH_SIZE; i++) {
            scheduler.schedule("quick", "first-" + i, "x", Duration.ZERO);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> Quick.done.get() == 2 * BATCH_SIZE);
        // A stretch of jobs 5 ms apart, all within claim-ahead of one another.
        Instant start = Instant.now().plusMillis(1500);
        for (int i = 0; i < JOBS; i++) {
            scheduler.schedule("quick", "job-" + i, "x", start.plusMillis(5L * i));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> Quick.done.get() == 2 * BATCH_SIZE + JOBS);
        int most = Quick.perClaim.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        assertTrue(most <= 2 * BATCH_SIZE, "a claim took " + most + " jobs with batch-size " + BATCH_SIZE + ": "
                + Quick.perClaim);
        assertEquals(0, scheduler.stats("quick").pending());
    }
}
