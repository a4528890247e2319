package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Handlers that finish quickly get jobs claimed ahead of their free slots, but never more than twice
 * {@code batch-size} beyond the concurrency, and still no more handlers run at once than the concurrency.
 * (Claiming ahead of the due time is switched off here; {@link ClaimAheadOfDueTest} covers it.)
 */
public class ClaimAheadTest {

    private static final int CONCURRENCY = 2;
    private static final int BATCH_SIZE = 4;
    private static final int JOBS = 400;

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Quick.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "claim-ahead")
            .overrideConfigKey("quarkus.delayed-jobs.queues.quick.concurrency", String.valueOf(CONCURRENCY))
            .overrideConfigKey("quarkus.delayed-jobs.queues.quick.batch-size", String.valueOf(BATCH_SIZE))
            .overrideConfigKey("quarkus.delayed-jobs.queues.quick.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.quick.claim-ahead", "0");

    static class Quick {
        static final AtomicInteger running = new AtomicInteger();
        static final AtomicInteger mostAtOnce = new AtomicInteger();
        static final AtomicInteger done = new AtomicInteger();

        @Delayed("quick")
        void run(int[] ignored) {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            running.decrementAndGet();
            done.incrementAndGet();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void quickHandlersGetJobsClaimedAheadWithinTheBatchSize() {
        for (int i = 0; i < JOBS; i++) {
            scheduler.schedule("quick", "job-" + i, new int[] { i }, Duration.ofMillis(500));
        }
        AtomicInteger mostClaimed = new AtomicInteger();
        // Samples the jobs claimed in Redis while the queue drains.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
            mostClaimed.accumulateAndGet((int) scheduler.stats("quick").running(), Math::max);
            return Quick.done.get() == JOBS;
        });
        assertTrue(mostClaimed.get() <= CONCURRENCY + 2 * BATCH_SIZE,
                "at most concurrency + 2 * batch-size jobs are claimed at once, saw " + mostClaimed.get());
        assertTrue(Quick.mostAtOnce.get() <= CONCURRENCY, "handlers at once: " + Quick.mostAtOnce.get());
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.stats("quick").running() == 0);
        assertEquals(0, scheduler.stats("quick").pending());
        assertEquals(JOBS, Quick.done.get());
    }
}
