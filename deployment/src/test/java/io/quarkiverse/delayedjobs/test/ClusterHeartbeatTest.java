package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * On a Redis Cluster, the wake subscription is judged by heartbeats that come back through the cluster connection:
 * with a heartbeat every 1.3 s (the poll interval), a healthy subscription is kept, not replaced at each heartbeat.
 */
public class ClusterHeartbeatTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Woken.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.clusterUrls())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "cluster-heartbeat")
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "1300ms");

    static class Woken {
        @Delayed("woken")
        void run() {
        }
    }

    /** The ids of the pub/sub connections of every node. */
    private static Set<String> subscriptions() {
        Set<String> ids = new TreeSet<>();
        for (String node : RedisTestServer.clusterUrls().split(",")) {
            Matcher m = Pattern.compile("id=(\\d+)").matcher(RedisTestServer.command(node, "CLIENT", "LIST", "TYPE",
                    "pubsub"));
            while (m.find()) {
                ids.add(node + "#" + m.group(1));
            }
        }
        return ids;
    }

    @Test
    void aHealthySubscriptionIsKept() {
        await().atMost(Duration.ofSeconds(10)).until(() -> !subscriptions().isEmpty());
        Set<String> first = subscriptions();
        // Five heartbeats, each judged 5 s after it was sent.
        await().during(Duration.ofSeconds(7)).atMost(Duration.ofSeconds(8)).until(() -> subscriptions().equals(first));
    }
}
