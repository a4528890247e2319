package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The master that holds a queue's shard count goes away (long before the cluster would fail it over), and producers
 * keep scheduling to the shards of the other masters. The engine records the count again after the lost connection;
 * a recording that fails is tried again a second later at the soonest, so the dead master's address gets a few
 * connections, not one per call (before, 818 for 1,609 calls in one run). Its port is taken by a socket that counts the
 * connections and closes each at once, as a host that resets them would.
 */
public class ClusterDeadMasterTest {

    static final List<String> NODES = RedisTestServer.clusterWithReplicasUrls("dead-master", 60_000);
    static final QueueKeys KEYS = new QueueKeys("dead", "gone", 8);
    static final String DEAD = NODES.stream()
            .filter(url -> RedisTestServer.isMaster(url)
                    && RedisTestServer.holds(url, KEYS.shardCountKey()))
            .findFirst().orElseThrow();

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Recorder.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", String.join(",", NODES))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "dead")
            .overrideConfigKey("quarkus.delayed-jobs.shards", "8")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "1s")
            .overrideConfigKey("quarkus.redis.health.enabled", "false");

    static class Recorder {
        static final Set<String> ran = ConcurrentHashMap.newKeySet();

        @Delayed("gone")
        void run(String payload, JobContext context) {
            ran.add(context.id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aDeadMasterGetsAFewConnectionsNotOnePerCall() throws Exception {
        List<Integer> deadShards = IntStream.range(0, 8).filter(s -> RedisTestServer.holds(DEAD, KEYS.shard(s).get(0)))
                .boxed().toList();
        scheduler.schedule("gone", "before", "payload", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Recorder.ran.contains("before"));

        RedisTestServer.shutdown(DEAD);
        int port = Integer.parseInt(DEAD.substring(DEAD.lastIndexOf(':') + 1));
        AtomicInteger connections = new AtomicInteger();
        try (ServerSocket dead = new ServerSocket(port, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!dead.isClosed()) {
                    try (Socket socket = dead.accept()) {
                        connections.incrementAndGet();
                    } catch (IOException e) {
                        return; // closed at the end of the test
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            // Jobs of the other masters' shards, due in an hour: their calls succeed while the count's master is gone.
            int scheduled = 0;
            long end = System.nanoTime() + Duration.ofMillis(2500).toNanos();
            for (int i = 0; System.nanoTime() - end < 0; i++) {
                String id = "job-" + i;
                if (!deadShards.contains(QueueKeys.shardOf(id, 8))) {
                    scheduler.schedule("gone", id, "payload", Duration.ofHours(1));
                    scheduled++;
                }
            }
            assertTrue(scheduled >= 100, "schedules to the other masters' shards: " + scheduled);
            assertTrue(connections.get() <= 10,
                    connections.get() + " connections to the dead master for " + scheduled + " schedules");
            dead.close();
            acceptor.join(5000);
        }
    }
}
