package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine.StartedWorker;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * The workers of an instance's queues take the event loops in turn instead of all sharing one: a handler that blocks
 * the event loop of its queue does not stop the jobs of a queue on another loop.
 */
public class EventLoopPerQueueTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, RedisTestServer.class, VertxFutures.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "event-loop-per-queue")
            // The wake subscription's connection may live on the loop blocked here: the other worker then learns of
            // its job at its next look.
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "1s")
            // Room for the three workers, the connection and the caller on loops of their own, whatever the machine.
            .overrideConfigKey("quarkus.vertx.event-loops-pool-size", "8");

    static class Handlers {
        static final Map<String, CountDownLatch> ran = Map.of("first", new CountDownLatch(1), "second",
                new CountDownLatch(1), "third", new CountDownLatch(1));

        @Delayed("first")
        void first() {
            ran.get("first").countDown();
        }

        @Delayed("second")
        void second() {
            ran.get("second").countDown();
        }

        @Delayed("third")
        void third() {
            ran.get("third").countDown();
        }
    }

    @Inject
    DelayedJobsEngine engine;

    @Inject
    JobStore store;

    @Inject
    DelayedScheduler scheduler;

    @Inject
    Vertx vertx;

    @Test
    void aBlockedEventLoopHoldsUpOnlyItsQueues() throws Exception {
        Map<String, Context> contexts = new HashMap<>();
        Map<String, String> loops = new HashMap<>();
        for (StartedWorker worker : engine.startedWorkers()) {
            contexts.put(worker.queue(), worker.context());
            loops.put(worker.queue(), VertxFutures.threadOf(worker.context()));
        }
        assertEquals(3, new HashSet<>(loops.values()).size(), "each queue's worker has an event loop of its own: " + loops);

        // Not the loop of the extension's Redis connection, which every call goes through, nor the one this thread's
        // calls complete on.
        Set<String> shared = Set.of(VertxFutures.threadOf(store.connectionContext()),
                VertxFutures.threadOf(vertx.getOrCreateContext()));
        String blocked = loops.entrySet().stream().filter(e -> !shared.contains(e.getValue())).findFirst()
                .orElseThrow().getKey();
        CountDownLatch release = new CountDownLatch(1);
        VertxFutures.block(contexts.get(blocked), release);
        try {
            // Its own job waits for its loop, whatever the others do.
            scheduler.schedule(blocked, "job", null, Duration.ZERO);
            for (String other : loops.keySet()) {
                if (!other.equals(blocked)) {
                    scheduler.schedule(other, "job", null, Duration.ZERO);
                    assertTrue(Handlers.ran.get(other).await(10, TimeUnit.SECONDS),
                            "the job of " + other + " ran while the loop of " + blocked + " was blocked");
                }
            }
            assertEquals(1, Handlers.ran.get(blocked).getCount(), "the job of " + blocked + " ran on a blocked loop");
        } finally {
            release.countDown();
        }
        assertTrue(Handlers.ran.get(blocked).await(10, TimeUnit.SECONDS), "and that of " + blocked + " once free");
    }
}
