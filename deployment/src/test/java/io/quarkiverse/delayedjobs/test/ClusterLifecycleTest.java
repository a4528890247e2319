package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The worker paths on a Redis Cluster, for queues whose shards sit on different nodes: retry after a failure, lease
 * renewal of a handler longer than its lease, and the hand-back of held and waiting jobs at a graceful stop.
 */
public class ClusterLifecycleTest {

    private static final int JOBS = 16;

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Flaky.class, Slow.class, Busy.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.clusterUrls())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "cluster-life")
            .overrideConfigKey("quarkus.delayed-jobs.queues.flaky.backoff.initial", "100ms")
            .overrideConfigKey("quarkus.delayed-jobs.queues.flaky.backoff.max", "200ms")
            .overrideConfigKey("quarkus.delayed-jobs.queues.slow.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.busy.concurrency", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.busy.claim-ahead", "1s");

    static class Flaky {
        static final Map<String, Set<Integer>> attempts = new ConcurrentHashMap<>();

        @Delayed("flaky")
        void run(JobContext context) {
            attempts.computeIfAbsent(context.id(), id -> ConcurrentHashMap.newKeySet()).add(context.attempt());
            if (context.attempt() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
        }
    }

    static class Slow {
        static final Map<String, Integer> deliveries = new ConcurrentHashMap<>();
        static final Set<String> lostAtEnd = ConcurrentHashMap.newKeySet();

        @Delayed("slow")
        void run(JobContext context) throws InterruptedException {
            deliveries.merge(context.id(), 1, Integer::sum);
            // Work that takes 2.5 leases; nothing counts this latch down.
            new CountDownLatch(1).await(2500, TimeUnit.MILLISECONDS);
            if (context.leaseLost()) {
                lostAtEnd.add(context.id());
            }
        }
    }

    static class Busy {
        static final Set<String> started = ConcurrentHashMap.newKeySet();
        static final CountDownLatch gate = new CountDownLatch(1);

        @Delayed("busy")
        void run(JobContext context) throws InterruptedException {
            started.add(context.id());
            gate.await(30, TimeUnit.SECONDS);
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    DelayedJobsEngine engine;

    @Inject
    JobStore store;

    @Test
    void retryRenewAndHandBackAcrossNodes() throws Exception {
        QueueKeys flakyKeys = store.queue("flaky").toCompletionStage().toCompletableFuture().get();
        Set<Integer> shards = new HashSet<>();
        for (int i = 0; i < JOBS; i++) {
            scheduler.schedule("flaky", "f-" + i, null, Duration.ZERO);
            shards.add(flakyKeys.shardOf("f-" + i));
        }
        assertTrue(shards.size() >= 4, "shards used: " + shards);
        for (int i = 0; i < 4; i++) {
            scheduler.schedule("slow", "s-" + i, null, Duration.ZERO);
        }
        // One reading of the stats per poll: a job between two readings (back to pending for its retry) is seen.
        await().atMost(Duration.ofSeconds(20)).until(() -> scheduler.stats("flaky"),
                s -> s.pending() == 0 && s.running() == 0 && s.dead() == 0);
        for (int i = 0; i < JOBS; i++) {
            assertEquals(Set.of(1, 2), Flaky.attempts.get("f-" + i), "f-" + i);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> scheduler.stats("slow"),
                s -> s.running() == 0 && s.pending() == 0);
        assertEquals(Map.of("s-0", 1, "s-1", 1, "s-2", 1, "s-3", 1), Slow.deliveries);
        assertEquals(Set.of(), Slow.lostAtEnd);

        // Graceful stop: one handler runs; the rest, claimed ahead from shards on several nodes, are handed back.
        scheduler.schedule("busy", "blocker", null, Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Busy.started.contains("blocker"));
        Instant due = Instant.now().plusMillis(1500);
        for (int i = 0; i < JOBS; i++) {
            scheduler.schedule("busy", "b-" + i, null, due);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.stats("busy").running() == JOBS + 1);
        CompletableFuture<Void> stopped = CompletableFuture.runAsync(engine::stop);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.stats("busy").pending() == JOBS);
        assertEquals(1, scheduler.stats("busy").running());
        for (int i = 0; i < JOBS; i++) {
            JobInfo info = scheduler.find("busy", "b-" + i).orElseThrow();
            assertEquals(JobInfo.State.PENDING, info.state());
            assertEquals(0, info.attempts(), "b-" + i);
        }
        Busy.gate.countDown();
        stopped.get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("busy", "blocker").isEmpty());
        assertEquals(Set.of("blocker"), Busy.started);
    }
}
