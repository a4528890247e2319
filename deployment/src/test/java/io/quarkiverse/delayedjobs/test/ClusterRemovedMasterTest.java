package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

/**
 * An operator moves every slot off a master and removes it from the cluster with {@code redis-cli --cluster del-node},
 * which leaves the process running, empty and alone. No call of the engine went to those slots, so nothing corrected
 * the slot map it read at start; a wake subscription opened there afterwards heard no wake-up (an operations trial saw
 * jobs run 6–15 s late). Each new subscription now reads the map afresh: dropped once per master, the subscription
 * comes back each time on a master still in the cluster, never on the removed one. A subscription already on a master
 * when it is removed moves by the heartbeat.
 */
public class ClusterRemovedMasterTest {

    static final List<String> NODES = RedisTestServer.clusterUrls("removed-master", 4);

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", String.join(",", NODES))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "removed-master")
            .overrideConfigKey("quarkus.delayed-jobs.queues.watched.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "1s")
            .overrideConfigKey("quarkus.redis.health.enabled", "false");

    static class Handler {
        static final Set<String> ran = ConcurrentHashMap.newKeySet();

        @Delayed("watched")
        void run(String payload, JobContext context) {
            ran.add(context.id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    /** The node whose client list shows a subscriber. */
    private static Optional<String> subscribedOn() {
        return NODES.stream()
                .filter(url -> RedisTestServer.subscribers(url) > 0)
                .findFirst();
    }

    @Test
    void aNewSubscriptionIsNeverOpenedOnAMasterRemovedFromTheCluster() {
        scheduler.schedule("watched", "pending", "p", Duration.ofHours(1)); // the queue's keys exist
        await().atMost(Duration.ofSeconds(10)).until(() -> subscribedOn().isPresent());
        String subscribed = subscribedOn().orElseThrow();
        // A master that holds none of the engine's keys, so that none of its calls meets a MOVED once it is gone.
        String removed = NODES.stream().filter(url -> !url.equals(subscribed))
                .filter(url -> RedisTestServer.command(url, "DBSIZE").equals(":0")).findFirst().orElseThrow();
        String keeper = NODES.stream().filter(url -> !url.equals(removed)).findFirst().orElseThrow();
        RedisTestServer.clusterTool("reshard", RedisTestServer.hostAndPort(keeper),
                "--cluster-from", RedisTestServer.nodeId(removed), "--cluster-to", RedisTestServer.nodeId(keeper),
                "--cluster-slots", "4096"); // all of them: a cluster made of four masters gives each a quarter
        RedisTestServer.clusterTool("del-node", RedisTestServer.hostAndPort(keeper), RedisTestServer.nodeId(removed));
        assertTrue(RedisTestServer.command(removed, "CLUSTER", "INFO").contains("cluster_known_nodes:1"),
                "the removed master still runs, alone");

        // The masters are taken in turn: without a fresh map, one of these rounds would open the subscription on the
        // removed master.
        for (int round = 0; round < NODES.size(); round++) {
            String on = subscribedOn().orElseThrow();
            assertFalse(on.equals(removed), "round " + round + ": the subscription is on the removed master");
            RedisTestServer.command(on, "CLIENT", "KILL", "TYPE", "pubsub");
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribedOn().isPresent());
        }
        assertFalse(subscribedOn().orElseThrow().equals(removed), "the subscription is on the removed master");

        // Now the master the subscription is on goes (its keys with its slots): the heartbeat, published elsewhere,
        // does not come back, and the subscription moves, within poll-interval (1 s) and the heartbeat's 5 s.
        String gone = subscribedOn().orElseThrow();
        String other = NODES.stream().filter(url -> !url.equals(removed) && !url.equals(gone)).findFirst()
                .orElseThrow();
        long slots = slotsOf(gone);
        RedisTestServer.clusterTool("reshard", RedisTestServer.hostAndPort(other),
                "--cluster-from", RedisTestServer.nodeId(gone), "--cluster-to", RedisTestServer.nodeId(other),
                "--cluster-slots", String.valueOf(slots));
        RedisTestServer.clusterTool("del-node", RedisTestServer.hostAndPort(other), RedisTestServer.nodeId(gone));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> subscribedOn().filter(on -> !on.equals(gone) && !on.equals(removed)).isPresent());
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("watched", "soon", "p", Duration.ofMillis(100)));
        await().atMost(Duration.ofSeconds(5)).until(() -> Handler.ran.contains("soon"));
    }

    /** How many slots the master at {@code url} serves, by its own line of CLUSTER NODES. */
    private static long slotsOf(String url) {
        String line = RedisTestServer.command(url, "CLUSTER", "NODES").lines().filter(l -> l.contains("myself"))
                .findFirst().orElseThrow();
        return Arrays.stream(line.split(" ")).skip(8).filter(range -> !range.startsWith("["))
                .mapToLong(range -> {
                    int dash = range.indexOf('-');
                    return dash < 0 ? 1
                            : Long.parseLong(range.substring(dash + 1)) - Long.parseLong(range.substring(0, dash)) + 1;
                }).sum();
    }
}
