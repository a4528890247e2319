package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClaimBatch;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClockReading;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The engine on a real Redis Cluster of three masters: the shards of a queue land on different nodes, each script call
 * goes to the node of its shard (loading the script there on {@code NOSCRIPT}), schedule calls and claim rounds carry
 * one shard each, and jobs claimed ahead start at their due time, each timed by its own node's clock.
 */
public class RedisClusterTest {

    private static final int JOBS = 40;

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Ticks.class, Start.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.clusterUrls())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "cluster");

    record Start(Instant at, Instant due) {
    }

    static class Ticks {
        static final Map<String, List<Start>> starts = new ConcurrentHashMap<>();

        @Delayed("ticks")
        void tick(String payload, JobContext context) {
            starts.computeIfAbsent(context.id(), id -> new CopyOnWriteArrayList<>())
                    .add(new Start(Instant.now(), context.dueAt()));
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Inject
    JobStore store;

    @Test
    void jobsOfEveryShardRunOnceAtTheirDueTimeAndACancelledOneDoesNot() throws Exception {
        Instant first = Instant.now().plusMillis(500);
        // All at once: the jobs that wait for the calls under way go out shard by shard, each to its own node (on one
        // server they would share a call).
        List<CompletableFuture<ScheduleResult>> scheduled = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            scheduled.add(reactive.schedule("ticks", "tick-" + i, "tick", first.plusMillis(20L * i))
                    .subscribeAsCompletionStage());
        }
        for (CompletableFuture<ScheduleResult> result : scheduled) {
            assertEquals(ScheduleResult.CREATED, result.get(10, TimeUnit.SECONDS));
        }
        scheduler.schedule("ticks", "cancelled", "x", first.plusMillis(300));
        assertTrue(scheduler.cancel("ticks", "cancelled"));

        await().atMost(Duration.ofSeconds(20)).until(() -> Ticks.starts.size() >= JOBS);
        for (int i = 0; i < JOBS; i++) {
            List<Start> starts = Ticks.starts.get("tick-" + i);
            assertEquals(1, starts.size(), "tick-" + i + " started " + starts);
            Start start = starts.get(0);
            assertFalse(start.at().isBefore(start.due()), "tick-" + i + " started at " + start.at() + ", due "
                    + start.due());
        }
        assertFalse(Ticks.starts.containsKey("cancelled"));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> scheduler.stats("ticks"), s -> s.running() == 0 && s.pending() == 0);

        // Nodes have clocks of their own: a claim's jobs are timed by its own node's reading, never by the later
        // reading of a claim another node answered (a claim whose reading is from the epoch stays near the epoch).
        ClaimBatch stale = new ClaimBatch(new ClockReading(0, System.nanoTime(), System.nanoTime()), -1, false, List.of(),
                List.of());
        long boundMicros = store.redisClockAtLeast(stale);
        assertTrue(boundMicros < 60_000_000, "the clock bound was " + boundMicros + " µs");

        // The queue spread over the cluster: more than one node holds keys of its shards.
        long nodesWithKeys = Arrays.stream(RedisTestServer.clusterUrls().split(","))
                .filter(url -> !RedisTestServer.command(url, "DBSIZE").equals(":0")).count();
        assertTrue(nodesWithKeys >= 2, nodesWithKeys + " node(s) hold keys");

        // The Dev UI's list of the queues in Redis looks on every master: these queues' shard counts are on two or more.
        List<String> queues = List.of("listed-a", "listed-b", "listed-c", "listed-d", "listed-e", "listed-f");
        queues.forEach(queue -> scheduler.schedule(queue, "x", null, Duration.ofHours(1)));
        List<String> stored = store.storedQueues().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertTrue(stored.containsAll(queues), "listed " + stored);
        assertTrue(stored.contains("ticks"), "listed " + stored);
        long holders = Arrays.stream(RedisTestServer.clusterUrls().split(",")).filter(url -> queues.stream()
                .anyMatch(queue -> RedisTestServer.holds(url, "cluster:{" + queue + "}:shards"))).count();
        assertTrue(holders >= 2, "the counts are on " + holders + " node(s)");
    }
}
