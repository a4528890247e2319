package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * On a cluster the wake subscription moves to the next master in turn at each reconnect. It passes over a master whose
 * connection the engine gave up lately: a frozen master takes connections and answers nothing, and a subscription
 * opened there waited five times {@code redis-timeout} for its handshake, with no wake-ups meanwhile. The subscription
 * is dropped four times here (three masters): each time it is back on a master that answers within 3 s.
 */
public class ClusterWakeAvoidsLostMasterTest {

    static final List<String> NODES = RedisTestServer.clusterWithReplicasUrls("wake-avoids-lost", 60_000);
    static final List<String> MASTERS = NODES.stream()
            .filter(RedisTestServer::isMaster).toList();
    static final QueueKeys KEYS = new QueueKeys("wake-avoids-lost", "watched", 8);

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", String.join(",", NODES))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "wake-avoids-lost")
            .overrideConfigKey("quarkus.delayed-jobs.queues.watched.shards", "8")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "1s")
            .overrideConfigKey("quarkus.redis.health.enabled", "false");

    static class Handler {
        @Delayed("watched")
        void run(String payload) {
        }
    }

    @Inject
    DelayedScheduler scheduler;

    /** The master whose client list shows a subscriber, of those that answer. */
    private static Optional<String> subscribedOn(String frozen) {
        return MASTERS.stream().filter(url -> !url.equals(frozen))
                .filter(url -> RedisTestServer.subscribers(url) > 0)
                .findFirst();
    }

    @Test
    void aNewSubscriptionPassesOverAMasterThatStoppedAnswering() {
        await().atMost(Duration.ofSeconds(10)).until(() -> subscribedOn(null).isPresent());
        String first = subscribedOn(null).orElseThrow();
        String frozen = MASTERS.stream().filter(url -> !url.equals(first)).findFirst().orElseThrow();
        int frozenShard = IntStream.range(0, 8).filter(s -> RedisTestServer.holds(frozen, KEYS.shard(s).get(0)))
                .findFirst().orElseThrow();
        String onFrozen = IntStream.iterate(0, i -> i + 1).mapToObj(i -> "id-" + i)
                .filter(id -> KEYS.shardOf(id) == frozenShard).findFirst().orElseThrow();
        scheduler.schedule("watched", "warm-up", "p", Duration.ofHours(1)); // the shard count is recorded
        RedisTestServer.freeze(frozen);
        try {
            // The engine gives up its connection to the frozen master.
            assertThrows(DelayedJobsException.class,
                    () -> scheduler.schedule("watched", onFrozen, "p", Duration.ofHours(1)));
            for (int i = 0; i < 4; i++) {
                String on = subscribedOn(frozen).orElseThrow();
                RedisTestServer.command(on, "CLIENT", "KILL", "TYPE", "pubsub");
                await().atMost(Duration.ofSeconds(3)).until(() -> subscribedOn(frozen).isPresent());
            }
        } finally {
            RedisTestServer.thaw(frozen);
        }
    }
}
