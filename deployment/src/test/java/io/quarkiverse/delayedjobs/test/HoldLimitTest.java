package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A worker whose handlers are slow holds no more jobs claimed ahead than its handlers get through within
 * {@code claim-ahead} (at least two batches), even when many more are due within it: other instances can run the
 * rest.
 */
public class HoldLimitTest {

    private static final int BATCH_SIZE = 4;
    private static final int JOBS = 40;
    private static final long HANDLER_MS = 100;

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Slow.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "hold-limit")
            .overrideConfigKey("quarkus.delayed-jobs.queues.slow.concurrency", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.slow.batch-size", String.valueOf(BATCH_SIZE))
            .overrideConfigKey("quarkus.delayed-jobs.queues.slow.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.slow.claim-ahead", "1s");

    static class Slow {
        static final AtomicInteger done = new AtomicInteger();

        @Delayed("slow")
        void run(String payload) throws InterruptedException {
            // The handler's own work, which the worker measures to size what it holds.
            TimeUnit.MILLISECONDS.sleep(HANDLER_MS);
            done.incrementAndGet();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void slowHandlersHoldOnlyWhatTheyGetThroughWithinClaimAhead() {
        // The first job teaches the worker how long a handler takes.
        scheduler.schedule("slow", "first", "x", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Slow.done.get() == 1);
        Instant start = Instant.now().plusMillis(500);
        for (int i = 0; i < JOBS; i++) {
            scheduler.schedule("slow", "job-" + i, "x", start.plusMillis(10L * i));
        }
        AtomicInteger mostClaimed = new AtomicInteger();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(2)).until(() -> {
            mostClaimed.accumulateAndGet((int) scheduler.stats("slow").running(), Math::max);
            return Slow.done.get() == JOBS + 1;
        });
        // One handler of 100 ms gets through 10 jobs within claim-ahead (1 s): those, and the one running. A fixed
        // room of four batches would have let the worker hold all 16 it had room for.
        long throughClaimAhead = 1000 / HANDLER_MS;
        assertTrue(mostClaimed.get() <= throughClaimAhead + 1,
                "claimed at once: " + mostClaimed.get() + ", the handler gets through " + throughClaimAhead);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.stats("slow").running() == 0);
        assertEquals(0, scheduler.stats("slow").pending());
    }
}
