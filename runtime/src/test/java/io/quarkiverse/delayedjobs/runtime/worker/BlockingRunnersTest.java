package io.quarkiverse.delayedjobs.runtime.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.vertx.core.Context;
import io.vertx.core.Vertx;

class BlockingRunnersTest {

    private Vertx vertx;
    private Context context;

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        context = vertx.getOrCreateContext();
    }

    @AfterEach
    void stop() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void quickJobsShareFewThreadsWhenOneRunnerIsWanted() throws InterruptedException {
        int jobs = 200;
        CountDownLatch allSubmitted = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(jobs);
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        // No stall check within the test: the first job waits until all are handed over, so that the runner cannot
        // run out of jobs and end while the others are still being submitted.
        BlockingRunners runners = new BlockingRunners(vertx, context, 16, 60_000);
        context.runOnContext(v -> {
            for (int i = 0; i < jobs; i++) {
                boolean first = i == 0;
                runners.submit(() -> {
                    if (first) {
                        await(allSubmitted);
                    }
                    threads.add(Thread.currentThread());
                    done.countDown();
                }, 1);
            }
            allSubmitted.countDown();
        });
        assertTrue(done.await(10, TimeUnit.SECONDS));
        // A task per job, or a runner per free slot, would spread them over up to 16 of the pool's 20 threads.
        assertTrue(threads.size() <= 3, "jobs ran on " + threads.size() + " threads");
    }

    @Test
    void aSlowJobDoesNotHoldUpTheJobsBehindIt() throws InterruptedException {
        CountDownLatch slowStarted = new CountDownLatch(1);
        CountDownLatch releaseSlow = new CountDownLatch(1);
        CountDownLatch quickDone = new CountDownLatch(10);
        BlockingRunners runners = new BlockingRunners(vertx, context, 4);
        context.runOnContext(v -> runners.submit(() -> {
            slowStarted.countDown();
            await(releaseSlow);
        }, 1));
        assertTrue(slowStarted.await(10, TimeUnit.SECONDS));
        try {
            // One runner is wanted, and it is busy with the slow job: another one starts for these.
            context.runOnContext(v -> {
                for (int i = 0; i < 10; i++) {
                    runners.submit(quickDone::countDown, 1);
                }
            });
            assertTrue(quickDone.await(10, TimeUnit.SECONDS), "quick jobs ran while the slow one was running");
        } finally {
            releaseSlow.countDown();
        }
    }

    @Test
    void neverMoreRunnersThanTheMaximum() throws InterruptedException {
        int max = 3;
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch full = new CountDownLatch(max);
        CountDownLatch done = new CountDownLatch(12);
        BlockingRunners runners = new BlockingRunners(vertx, context, max);
        context.runOnContext(v -> {
            for (int i = 0; i < 12; i++) {
                runners.submit(() -> {
                    mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                    full.countDown();
                    await(release);
                    running.decrementAndGet();
                    done.countDown();
                }, 12);
            }
        });
        assertTrue(full.await(10, TimeUnit.SECONDS), "the maximum of runners started");
        // Stalled runners make the stall check (every ms) try to start more: let it try for 50 ms, up to the maximum
        // only.
        CountDownLatch stallChecks = new CountDownLatch(1);
        vertx.setTimer(50, id -> stallChecks.countDown());
        assertTrue(stallChecks.await(10, TimeUnit.SECONDS));
        assertEquals(max, running.get());
        release.countDown();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(max, mostAtOnce.get());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
