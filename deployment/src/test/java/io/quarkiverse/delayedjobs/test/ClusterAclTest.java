package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The least-privilege user of operations.adoc, with the two commands it adds for a cluster (the engine reads the slot
 * map itself, and sends ASKING during a slot migration), on every node: jobs run and readiness is UP.
 */
public class ClusterAclTest {

    private static final String PREFIX = "cluster-acl";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, HealthEndpoints.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", urls())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", PREFIX)
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "3s");

    static class Handler {
        static final CountDownLatch ran = new CountDownLatch(8);

        @Delayed("cl")
        void run() {
            ran.countDown();
        }
    }

    private static String urls() {
        List<String> nodes = RedisTestServer.clusterUrls("cluster-acl", 3);
        for (String url : nodes) {
            RedisTestServer.command(url, "ACL", "SETUSER", "jobs", "reset", "on", ">secret", "~" + PREFIX + ":*",
                    "&" + PREFIX + ":*", "-@all", "+evalsha", "+eval", "+get", "+set", "+publish", "+subscribe",
                    "+time", "+hello", "+exists", "+hdel", "+hget", "+hincrby", "+hlen", "+hmget", "+hset", "+hsetnx",
                    "+incr", "+incrby", "+zadd", "+zcard", "+zcount", "+zrange", "+zrangebyscore", "+zrem",
                    "+zremrangebyrank", "+zrevrange", "+zscore", "+ping", "+cluster|slots", "+asking");
        }
        return String.join(",", nodes.stream().map(u -> u.replace("redis://", "redis://jobs:secret@")).toList());
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theDocumentedAclRunsJobsOnACluster() throws InterruptedException {
        for (int i = 0; i < 8; i++) {
            scheduler.schedule("cl", "job-" + i, null, Duration.ofMillis(200));
        }
        assertTrue(Handler.ran.await(20, TimeUnit.SECONDS));
        HealthEndpoints.Answer ready = HealthEndpoints.get(HealthEndpoints.READY);
        assertEquals(200, ready.status(), ready.body());
    }
}
