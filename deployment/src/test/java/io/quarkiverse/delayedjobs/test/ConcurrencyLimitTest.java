package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
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
 * jobs are claimed than can run.
 */
public class ConcurrencyLimitTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Limited.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "concurrency")
            .overrideConfigKey("quarkus.delayed-jobs.queues.limited.concurrency", "3")
            .overrideConfigKey("quarkus.delayed-jobs.queues.limited.shards", "2");

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
}
