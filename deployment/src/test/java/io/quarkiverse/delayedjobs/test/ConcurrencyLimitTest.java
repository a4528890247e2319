package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkus.test.QuarkusUnitTest;

/**
 * No more handlers of a queue run at once than its concurrency, and slow handlers get no jobs claimed ahead: no more
 * jobs are claimed than can run. Jobs claimed ahead of their due time, which this instance then holds in memory, are
 * more than the concurrency once they are all due: still only that many handlers run, and no other starts while they
 * block.
 */
public class ConcurrencyLimitTest {

    private static final int HELD_CONCURRENCY = 3;
    private static final int HELD_JOBS = 3 * HELD_CONCURRENCY;

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "concurrency")
            .overrideConfigKey("quarkus.delayed-jobs.queues.limited.concurrency", "3")
            .overrideConfigKey("quarkus.delayed-jobs.queues.limited.shards", "2")
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.concurrency", String.valueOf(HELD_CONCURRENCY))
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.shards", "1")
            // Claimed from 200 ms before they are due, the jobs due within 1 s: all of them in one claim.
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.claim-ahead", "1s");

    static class Limited {
        static final AtomicInteger running = new AtomicInteger();
        static final AtomicInteger mostAtOnce = new AtomicInteger();
        static final AtomicInteger done = new AtomicInteger();
        static final CountDownLatch gate = new CountDownLatch(1);

        @Delayed("limited")
        void run(int[] ignored) throws InterruptedException {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            gate.await(30, TimeUnit.SECONDS);
            running.decrementAndGet();
            done.incrementAndGet();
        }

        static final AtomicInteger heldRunning = new AtomicInteger();
        static final AtomicInteger heldStarted = new AtomicInteger();
        static final AtomicInteger heldDone = new AtomicInteger();
        static final CountDownLatch heldGate = new CountDownLatch(1);

        @Delayed("held")
        void held(int[] ignored) throws InterruptedException {
            heldStarted.incrementAndGet();
            heldRunning.incrementAndGet();
            heldGate.await(30, TimeUnit.SECONDS);
            heldRunning.decrementAndGet();
            heldDone.incrementAndGet();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void atMostConcurrencyHandlersRunAndOnlyThatManyJobsAreClaimed() {
        for (int i = 0; i < 12; i++) {
            scheduler.schedule("limited", "job-" + i, new int[] { i }, Duration.ZERO);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> Limited.running.get() == 3);
        QueueStats stats = scheduler.stats("limited");
        assertEquals(3, stats.running());
        assertEquals(9, stats.pending());

        Limited.gate.countDown();
        await().atMost(Duration.ofSeconds(15)).until(() -> Limited.done.get() == 12);
        assertEquals(3, Limited.mostAtOnce.get());
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.stats("limited").running() == 0);
        assertEquals(0, scheduler.stats("limited").pending());
    }

    @Test
    void jobsHeldInMemoryBeyondTheConcurrencyStartOnlyAsHandlersFree() {
        Instant due = Instant.now().plusMillis(1500);
        for (int i = 0; i < HELD_JOBS; i++) {
            scheduler.schedule("held", "held-" + i, new int[] { i }, due);
        }
        // All of them claimed (running in Redis) and held by this instance until they are due: three times as many
        // as may run.
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                .until(() -> scheduler.stats("held").running() == HELD_JOBS);
        assertEquals(0, scheduler.stats("held").pending());
        await().atMost(Duration.ofSeconds(5)).until(() -> Limited.heldStarted.get() >= HELD_CONCURRENCY);
        // Once due, all of them wait for a handler; while the first ones block, exactly the concurrency runs.
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10))
                .untilAsserted(() -> {
                    assertEquals(HELD_CONCURRENCY, Limited.heldStarted.get(), "handlers started while the first block");
                    assertEquals(HELD_CONCURRENCY, Limited.heldRunning.get(), "handlers running at once");
                });
        assertEquals(HELD_JOBS, scheduler.stats("held").running());

        Limited.heldGate.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> Limited.heldDone.get() == HELD_JOBS);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.stats("held").running() == 0);
        assertEquals(HELD_JOBS, Limited.heldStarted.get());
    }
}
