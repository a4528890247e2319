package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.ClusterConnections;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The slot of a shard moves to another master while the engine runs, as a resharding moves it: while it migrates, the
 * old master answers {@code ASK} for the keys it no longer has, the engine sends the call to the new one after an
 * {@code ASKING}, and the new one answers {@code TRYAGAIN} (some of a script's keys do not exist), so the call is sent
 * again until the slot has moved; then the old master answers {@code MOVED}, and the engine follows. No call fails.
 */
public class ClusterSlotMigrationTest {

    static final int SHARDS = 4;
    static final List<String> NODES = List.of(RedisTestServer.clusterUrls().split(","));

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Recorder.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", String.join(",", NODES))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "migration")
            .overrideConfigKey("quarkus.delayed-jobs.shards", String.valueOf(SHARDS));

    static class Recorder {
        static final Set<String> ran = ConcurrentHashMap.newKeySet();

        @Delayed("moving")
        void run(String payload, JobContext context) {
            ran.add(context.id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Test
    void callsFollowAskThenMovedWhileAShardsSlotMoves() throws Exception {
        List<String> shardKeys = new QueueKeys("migration", "moving", SHARDS).shard(0);
        String slot = String.valueOf(ClusterConnections.slotOf(shardKeys.get(0)));
        String source = NODES.stream().filter(url -> RedisTestServer.holds(url, shardKeys.get(0))).findFirst()
                .orElseThrow();
        String target = NODES.stream().filter(url -> !url.equals(source)).findFirst().orElseThrow();
        List<String> ids = idsOfShardZero();

        // Pending for an hour: the shard's keys exist on the old master.
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("moving", ids.get(0), "payload", Duration.ofHours(1)));

        String sourceId = RedisTestServer.command(source, "CLUSTER", "MYID");
        String targetId = RedisTestServer.command(target, "CLUSTER", "MYID");
        assertEquals("+OK", RedisTestServer.command(target, "CLUSTER", "SETSLOT", slot, "IMPORTING", sourceId));
        assertEquals("+OK", RedisTestServer.command(source, "CLUSTER", "SETSLOT", slot, "MIGRATING", targetId));
        List<String> migrate = new ArrayList<>(List.of("MIGRATE", "127.0.0.1", target.substring(target.lastIndexOf(':') + 1),
                "", "0", "5000", "KEYS"));
        // Every key of the slot, as a resharding moves them: the shard's nine and its index buckets.
        migrate.addAll(shardKeys);
        for (int bucket = 0; bucket < 256; bucket++) {
            migrate.add(shardKeys.get(7) + ":" + bucket);
        }
        assertEquals("+OK", RedisTestServer.command(source, migrate.toArray(String[]::new)));
        assertTrue(RedisTestServer.command(source, "EVAL", "return redis.call('EXISTS', KEYS[1])", "1", shardKeys.get(0))
                .startsWith("-ASK"), "the old master asks the new one to take the shard's calls");

        // Migrating: the old master answers ASK, and the new one TRYAGAIN, since some of the script's keys do not exist
        // (yet): the call is sent again, every 100 ms, until the slot has moved (within redis-timeout, 10 s): here after
        // ten rounds.
        long askedBefore = errors(source, "ASK");
        long triedBefore = errors(target, "TRYAGAIN");
        CompletableFuture<ScheduleResult> duringMigration = reactive
                .schedule("moving", ids.get(1), "payload", Duration.ofHours(1)).subscribeAsCompletionStage();
        await().atMost(Duration.ofSeconds(5)).until(() -> errors(target, "TRYAGAIN") >= triedBefore + 10);
        assertTrue(errors(source, "ASK") > askedBefore, "the old master answered ASK");
        assertFalse(duringMigration.isDone());

        long movedBefore = errors(source, "MOVED");
        // The new master first, as Redis's manual says: until the old one learns of it, it still answers ASK.
        List<String> order = new ArrayList<>(List.of(target, source));
        NODES.stream().filter(node -> !order.contains(node)).forEach(order::add);
        for (String node : order) {
            assertEquals("+OK", RedisTestServer.command(node, "CLUSTER", "SETSLOT", slot, "NODE", targetId));
        }
        // Moved: the call goes through, by a last ASK or by the old master's MOVED; the next one, if not this one,
        // meets the MOVED, and follows it.
        assertEquals(ScheduleResult.CREATED, duringMigration.get(5, TimeUnit.SECONDS));
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("moving", ids.get(2), "payload", Duration.ZERO));
        assertTrue(errors(source, "MOVED") > movedBefore, "the old master answered MOVED");

        assertTrue(scheduler.cancel("moving", ids.get(0)));
        assertTrue(scheduler.find("moving", ids.get(1)).isPresent());
        await().atMost(Duration.ofSeconds(10)).until(() -> Recorder.ran.contains(ids.get(2)));
        assertEquals(":1", RedisTestServer.command(target, "EXISTS", shardKeys.get(0)), "the shard lives on the new master");
    }

    /** How many times a node answered an error of this kind (INFO errorstats). */
    private static long errors(String url, String kind) {
        String stats = RedisTestServer.command(url, "INFO", "errorstats");
        int at = stats.indexOf("errorstat_" + kind + ":count=");
        if (at < 0) {
            return 0;
        }
        int from = at + ("errorstat_" + kind + ":count=").length();
        int to = from;
        while (to < stats.length() && Character.isDigit(stats.charAt(to))) {
            to++;
        }
        return Long.parseLong(stats.substring(from, to));
    }

    /** Three job ids of shard 0. */
    private static List<String> idsOfShardZero() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; ids.size() < 3; i++) {
            if (QueueKeys.shardOf("job-" + i, SHARDS) == 0) {
                ids.add("job-" + i);
            }
        }
        return ids;
    }
}
