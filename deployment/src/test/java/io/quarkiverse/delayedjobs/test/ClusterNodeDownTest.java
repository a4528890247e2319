package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.runtime.redis.ClusterConnections;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonObject;

/**
 * One master of a Redis Cluster frozen (it takes connections and answers nothing), long before the cluster fails it
 * over (node timeout 10 s): the calls of its shards time out, and the shards of the other masters go on, schedules and
 * jobs alike, although the frozen master holds the queue's shard count and the wake subscription too, and readiness
 * stays UP, naming the frozen master's shards. Once its replica took over, the jobs of its shards run again.
 */
public class ClusterNodeDownTest {

    static final List<String> NODES = RedisTestServer.clusterWithReplicasUrls("node-down", 10_000);
    /**
     * The master of the queue's shard count, which a lost connection makes the engine record again. The queue's name
     * puts the count in slot 675, which the first master holds with slot 0: the engine's first wake subscription is on
     * the master of slot 0.
     */
    static final String FROZEN = NODES.stream()
            .filter(url -> RedisTestServer.isMaster(url)
                    && RedisTestServer.holds(url, "down:{lost}:shards"))
            .findFirst().orElseThrow();
    static final int SHARDS = 8;

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Recorder.class, RedisTestServer.class, HealthEndpoints.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", String.join(",", NODES))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "down")
            .overrideConfigKey("quarkus.delayed-jobs.shards", String.valueOf(SHARDS))
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "1s")
            // The Redis client's own check needs every master: it would hold the health endpoint.
            .overrideConfigKey("quarkus.redis.health.enabled", "false");

    static class Recorder {
        static final Set<String> ran = ConcurrentHashMap.newKeySet();

        @Delayed("lost")
        void run(String payload, JobContext context) {
            ran.add(context.id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theOtherMastersShardsGoOnWhileOneMasterIsFrozen() {
        List<Integer> frozenShards = IntStream.range(0, SHARDS).filter(s -> RedisTestServer.holds(FROZEN, dueKey(s)))
                .boxed().toList();
        assertFalse(frozenShards.isEmpty() || frozenShards.size() == SHARDS, "shards on the frozen master: " + frozenShards);
        for (int s = 0; s < SHARDS; s++) {
            assertEquals(RedisTestServer.command(FROZEN, "CLUSTER", "KEYSLOT", dueKey(s)),
                    ":" + ClusterConnections.slotOf(dueKey(s)), "slot of " + dueKey(s));
        }
        List<String> onFrozen = ids(frozenShards::contains);
        List<String> elsewhere = ids(s -> !frozenShards.contains(s));
        assertTrue(RedisTestServer.holds(FROZEN, keyOfSlotZero()),
                "the frozen master holds slot 0, where the wake subscription goes first");
        scheduler.schedule("lost", "before", "payload", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Recorder.ran.contains("before"));

        String replica = RedisTestServer.replicaOf(NODES, FROZEN);
        RedisTestServer.freeze(FROZEN);
        try {
            // A call to the frozen master times out, and the engine drops that node's connection...
            assertThrows(DelayedJobsException.class,
                    () -> scheduler.schedule("lost", onFrozen.get(0), "payload", Duration.ZERO));
            // ... while the calls of the other masters' shards go on, and their jobs run, before any failover.
            for (String id : elsewhere) {
                scheduler.schedule("lost", id, "payload", Duration.ZERO);
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> Recorder.ran.containsAll(elsewhere));
            // Readiness looks in every shard: UP, since the other masters run the scripts, naming the frozen ones.
            JsonObject readiness = HealthEndpoints.readiness();
            assertEquals("UP", readiness.getString("status"), readiness.encode());
            assertEquals(frozenShards.toString(), readiness.getJsonObject("data").getString("failing shards"),
                    readiness.encode());
            assertFalse(RedisTestServer.isMaster(replica),
                    "the replica took over before the other shards' jobs ran and readiness answered: the test proves"
                            + " nothing");

            await().atMost(Duration.ofSeconds(40))
                    .until(() -> RedisTestServer.isMaster(replica));
            // The frozen master's shards are served by its replica now.
            for (String id : onFrozen) {
                await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                        .until(() -> scheduler.schedule("lost", id, "payload", Duration.ZERO) != null);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> Recorder.ran.containsAll(onFrozen));
        } finally {
            RedisTestServer.thaw(FROZEN);
        }
    }

    private static String dueKey(int shard) {
        return new QueueKeys("down", "lost", SHARDS).shard(shard).get(0);
    }

    private static String keyOfSlotZero() {
        return IntStream.iterate(0, i -> i + 1).mapToObj(i -> "k" + i).filter(k -> ClusterConnections.slotOf(k) == 0)
                .findFirst().orElseThrow();
    }

    /** Five job ids whose shards pass the filter. */
    private static List<String> ids(java.util.function.IntPredicate shard) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; ids.size() < 5; i++) {
            String id = "job-" + i;
            if (shard.test(QueueKeys.shardOf(id, SHARDS))) {
                ids.add(id);
            }
        }
        return ids;
    }
}
