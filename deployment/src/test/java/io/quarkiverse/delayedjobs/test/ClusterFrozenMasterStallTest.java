package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * One master frozen and not failed over (node timeout 60 s), as behind a network cut between the application and that
 * master: the shards of the other masters go on, neither held up by calls to the frozen one until they time out.
 * <ol>
 * <li>A job of a healthy shard, due 1.5 s after a job of the frozen master's shard, runs on time: before, the claim
 * round of the frozen shard held the wake timer of the other shards until it timed out, and the job ran about
 * {@code redis-timeout} late.</li>
 * <li>With four schedule calls to the frozen master under way, a schedule to a healthy shard goes at once: the calls
 * under way are counted per master; before, per queue, and it waited for one of them to time out.</li>
 * <li>A job of a healthy shard, due a second after a job of that shard claimed in the same round as the frozen
 * master's shard, runs on time while that job's handler is still at work: the next round, and the wake timer, are
 * planned after each answer on a cluster; before, once the whole round was back (or a handler finished), and that
 * job too ran about {@code redis-timeout} late.</li>
 * <li>While claims ahead wait on the frozen master, the healthy shards get no more jobs claimed ahead than the room
 * those claims leave: before, the room counted only the jobs back already, and the healthy shards got the whole hold
 * limit again.</li>
 * </ol>
 * Found by review helpers.
 */
public class ClusterFrozenMasterStallTest {

    static final List<String> NODES = RedisTestServer.clusterWithReplicasUrls("frozen-stall", 60_000);
    static final int SHARDS = 8;
    static final QueueKeys LATE = new QueueKeys("frozen-stall", "late", SHARDS);
    static final QueueKeys MID_ROUND = new QueueKeys("frozen-stall", "mid-round", SHARDS);
    static final QueueKeys STALL = new QueueKeys("frozen-stall", "stall", 64);
    static final QueueKeys HELD = new QueueKeys("frozen-stall", "held", 16);
    /**
     * A master that holds some of the shards of 'late' and of 'mid-round' but not all (and, with 64 shards, several of
     * 'stall').
     */
    static final String FROZEN = NODES.stream()
            .filter(url -> RedisTestServer.isMaster(url) && holdsSomeNotAll(url, LATE) && holdsSomeNotAll(url, MID_ROUND))
            .findFirst().orElseThrow();

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Recorder.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", String.join(",", NODES))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "frozen-stall")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"stall\".shards", "64")
            // Claimed once due: a job claimed ahead would plan the next round as its timer starts it.
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"mid-round\".claim-ahead", "0")
            // With no handler time known yet, the worker holds at most two batches (8 jobs) claimed ahead.
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"held\".shards", "16")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"held\".claim-ahead", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"held\".batch-size", "4")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"held\".concurrency", "64")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"held\".lease", "10s")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "4s")
            .overrideConfigKey("quarkus.redis.health.enabled", "false");

    static class Recorder {
        /** Job id to its lateness in ms as its handler started. */
        static final Map<String, Long> late = new ConcurrentHashMap<>();
        /** Lets the handlers of jobs with the payload "slow" end. */
        static final CountDownLatch slowEnd = new CountDownLatch(1);
        /** Ids of the jobs of 'held' run, and of those with the payload "healthy" started. */
        static final Set<String> held = ConcurrentHashMap.newKeySet();
        static final Set<String> heldStarted = ConcurrentHashMap.newKeySet();
        /** Lets the handlers of the jobs of 'held' with the payload "healthy" end. */
        static final CountDownLatch heldEnd = new CountDownLatch(1);

        @Delayed("held")
        void runHeld(String payload, JobContext context) throws InterruptedException {
            if (payload.equals("healthy")) {
                heldStarted.add(context.id());
                heldEnd.await(20, TimeUnit.SECONDS); // leased while the test reads the lease
            }
            held.add(context.id());
        }

        @Delayed("late")
        void run(String payload, JobContext context) {
            late.put(context.id(), Duration.between(context.dueAt(), Instant.now()).toMillis());
        }

        /** Job id to its lateness in ms as its handler started, for the queue 'mid-round'. */
        static final Map<String, Long> lateMidRound = new ConcurrentHashMap<>();

        @Delayed("mid-round")
        void runMidRound(String payload, JobContext context) throws InterruptedException {
            lateMidRound.put(context.id(), Duration.between(context.dueAt(), Instant.now()).toMillis());
            if (payload.equals("slow")) {
                slowEnd.await(20, TimeUnit.SECONDS); // a long job
            }
        }
    }

    static boolean holdsSomeNotAll(String url, QueueKeys keys) {
        return IntStream.range(0, keys.shards()).anyMatch(s -> RedisTestServer.holds(url, keys.shard(s).get(0)))
                && IntStream.range(0, keys.shards()).anyMatch(s -> !RedisTestServer.holds(url, keys.shard(s).get(0)));
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Inject
    JobStore store;

    /** The {@code skip}-th id, counting from 0, of a shard that {@code shard} accepts. */
    static String idOn(QueueKeys keys, IntPredicate shard, int skip) {
        int found = 0;
        for (int i = 0;; i++) {
            String id = "id-" + i;
            if (shard.test(keys.shardOf(id)) && found++ == skip) {
                return id;
            }
        }
    }

    /**
     * Runs a job due now on the frozen master's shard and one on the healthy shard, {@code warmFrozen} and
     * {@code warmHealthy}: the claims that take them answer each shard's next due time.
     */
    private void warmUp(QueueKeys keys, Map<String, Long> ran, String warmFrozen, String warmHealthy) {
        scheduler.schedule(keys.queue(), warmFrozen, "p", Duration.ZERO);
        scheduler.schedule(keys.queue(), warmHealthy, "p", Duration.ZERO);
        await().atMost(Duration.ofSeconds(5)).until(() -> ran.containsKey(warmFrozen) && ran.containsKey(warmHealthy));
    }

    @Test
    void aShardAnsweredWhileTheFrozenMastersClaimIsUnderWayGoesOn() {
        IntPredicate frozenShard = s -> RedisTestServer.holds(FROZEN, MID_ROUND.shard(s).get(0));
        String onFrozen = idOn(MID_ROUND, frozenShard, 0);
        String healthy = idOn(MID_ROUND, frozenShard.negate(), 0);
        String healthyNext = idOn(MID_ROUND, s -> s == MID_ROUND.shardOf(healthy), 1);
        // The two shards come due at once, so one round claims both; the healthy shard's answer tells of its next job,
        // a second later, and its job is still running then.
        Instant due = Instant.now().plusMillis(3000);
        scheduler.schedule("mid-round", onFrozen, "p", due);
        scheduler.schedule("mid-round", healthy, "slow", due);
        scheduler.schedule("mid-round", healthyNext, "p", due.plusMillis(1000));
        warmUp(MID_ROUND, Recorder.lateMidRound, idOn(MID_ROUND, s -> s == MID_ROUND.shardOf(onFrozen), 1),
                idOn(MID_ROUND, s -> s == MID_ROUND.shardOf(healthy), 2));
        assertTrue(Instant.now().isBefore(due.minusMillis(500)), "the master froze too late: nothing is tested");
        RedisTestServer.freeze(FROZEN);
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> Recorder.lateMidRound.containsKey(healthyNext));
            long lateness = Recorder.lateMidRound.get(healthyNext);
            assertTrue(lateness < 2500, "the healthy shard's next job ran " + lateness + " ms late");
        } finally {
            Recorder.slowEnd.countDown();
            RedisTestServer.thaw(FROZEN);
        }
    }

    @Test
    void theShardsOfTheOtherMastersGoOn() throws Exception {
        IntPredicate frozenShard = s -> RedisTestServer.holds(FROZEN, LATE.shard(s).get(0));
        String onFrozen = idOn(LATE, frozenShard, 0);
        String healthy = idOn(LATE, frozenShard.negate(), 0);
        List<Integer> frozenStallShards = IntStream.range(0, 64)
                .filter(s -> RedisTestServer.holds(FROZEN, STALL.shard(s).get(0)))
                .boxed().toList();
        assertTrue(frozenStallShards.size() >= 4, "the frozen master's shards of 'stall': " + frozenStallShards);
        // Records the shard count of 'stall' before the freeze.
        scheduler.schedule("stall", idOn(STALL, s -> !frozenStallShards.contains(s), 1), "p", Duration.ofHours(1));

        // The worker learns both due times from claims of the two shards (each claim answers its shard's next due
        // time), which take a job due now from each; then the frozen shard's job comes due first.
        scheduler.schedule("late", onFrozen, "p", Duration.ofMillis(1500));
        scheduler.schedule("late", healthy, "p", Duration.ofMillis(3000));
        warmUp(LATE, Recorder.late, idOn(LATE, s -> s == LATE.shardOf(onFrozen), 1),
                idOn(LATE, s -> s == LATE.shardOf(healthy), 1));
        RedisTestServer.freeze(FROZEN);
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> Recorder.late.containsKey(healthy));
            long lateness = Recorder.late.get(healthy);
            assertTrue(lateness < 2500, "the healthy shard's job ran " + lateness + " ms late");

            // Four schedule calls to the frozen master, then one to a healthy shard, made on the store's event loop
            // after the send of the four: they are under way by then.
            for (int i = 0; i < 4; i++) {
                int shard = frozenStallShards.get(i);
                reactive.schedule("stall", idOn(STALL, s -> s == shard, 0), "p", Duration.ofHours(1)).subscribe()
                        .with(r -> {
                        }, e -> {
                        });
            }
            String stallHealthy = idOn(STALL, s -> !frozenStallShards.contains(s), 0);
            CompletableFuture<Long> tookMs = new CompletableFuture<>();
            store.connectionContext().runOnContext(v -> {
                long start = System.nanoTime();
                reactive.schedule("stall", stallHealthy, "p", Duration.ofHours(1)).subscribe().with(
                        r -> tookMs.complete((System.nanoTime() - start) / 1_000_000), tookMs::completeExceptionally);
            });
            long took = tookMs.get(20, TimeUnit.SECONDS);
            assertTrue(took < 2500, "the schedule to a healthy shard took " + took + " ms");
        } finally {
            RedisTestServer.thaw(FROZEN);
        }
    }

    @Test
    void claimsUnderWayKeepTheirRoomForJobsHeld() throws InterruptedException {
        // A master with several shards of 'held', and not the one the wake subscription is on: the healthy shards'
        // jobs are known as they are scheduled.
        String frozen = NODES.stream()
                .filter(url -> RedisTestServer.isMaster(url) && holdsSomeNotAll(url, HELD)
                        && IntStream.range(0, HELD.shards()).filter(s -> RedisTestServer.holds(url, HELD.shard(s).get(0)))
                                .count() >= 2
                        && RedisTestServer.subscribers(url) == 0)
                .findFirst().orElseThrow();
        // Asked before the freeze, as the frozen master answers nothing: its shards, and the healthy shards' 'run'
        // keys (their claims' leases), each with its master.
        Set<Integer> frozenShards = IntStream.range(0, HELD.shards())
                .filter(s -> RedisTestServer.holds(frozen, HELD.shard(s).get(0))).boxed().collect(Collectors.toSet());
        IntPredicate frozenShard = frozenShards::contains;
        Map<String, String> healthyRuns = new HashMap<>();
        for (int shard = 0; shard < HELD.shards(); shard++) {
            String run = HELD.shard(shard).get(1);
            if (!frozenShard.test(shard)) {
                healthyRuns.put(run, NODES.stream()
                        .filter(url -> RedisTestServer.isMaster(url) && RedisTestServer.holds(url, run))
                        .findFirst().orElseThrow());
            }
        }
        // Two jobs on each of the frozen master's shards: with two shards or more, the claims of their round take
        // up the hold limit (two batches, 8 jobs).
        List<String> jobs = new ArrayList<>();
        Instant frozenDue = Instant.now().plusMillis(1500);
        for (int shard = 0; shard < HELD.shards(); shard++) {
            int s = shard;
            for (int i = 0; frozenShard.test(s) && i < 2; i++) {
                String id = idOn(HELD, t -> t == s, i);
                scheduler.schedule("held", id, "p", frozenDue);
                jobs.add(id);
            }
        }
        assertTrue(Instant.now().isBefore(frozenDue.minusMillis(400)), "scheduled too late: nothing is tested");
        RedisTestServer.freeze(frozen);
        try {
            // The round claiming them goes out a fifth of claim-ahead (200 ms) before they are due, and waits for the
            // frozen master (redis-timeout 4 s).
            await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(frozenDue.minusMillis(100)));
            // A job on each healthy shard, claimed from 200 ms before it is due.
            Instant healthyDue = frozenDue.plusMillis(600);
            List<String> healthy = new ArrayList<>();
            for (int shard = 0; shard < HELD.shards(); shard++) {
                int s = shard;
                if (!frozenShard.test(s)) {
                    String id = idOn(HELD, t -> t == s, 0);
                    scheduler.schedule("held", id, "healthy", healthyDue);
                    healthy.add(id);
                }
            }
            jobs.addAll(healthy);
            await().atMost(Duration.ofSeconds(3)).until(() -> Recorder.heldStarted.containsAll(healthy));
            // A claim ahead leases its jobs until claim-ahead (1 s) and the lease (10 s) after it was sent; a claim of
            // due jobs, until the lease after. Before, the healthy shards were claimed ahead while the frozen master's
            // claims were out, as if those would bring back nothing.
            long leaseEndOfAhead = healthyDue.toEpochMilli() + 10_000 + 400;
            long claimedAhead = healthyRuns.entrySet().stream().mapToLong(run -> Long.parseLong(RedisTestServer
                    .command(run.getValue(), "ZCOUNT", run.getKey(), String.valueOf(leaseEndOfAhead), "+inf")
                    .substring(1))).sum();
            assertEquals(0, claimedAhead, "claims of the healthy shards that took their jobs ahead");
        } finally {
            Recorder.heldEnd.countDown();
            RedisTestServer.thaw(frozen);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> Recorder.held.containsAll(jobs));
    }
}
