package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code quarkus.redis.client-type=cluster} without hosts: the {@code redis-server} started from the PATH is a cluster
 * of one node, since a cluster client refuses a server without cluster support ("ERR This instance has cluster support
 * disabled", and the application did not start).
 */
public class RedisServerDevServiceClusterTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Pinger.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");

    static class Pinger {
        static final CountDownLatch ran = new CountDownLatch(1);

        @Delayed("dev-services")
        void ping() {
            ran.countDown();
        }
    }

    @ConfigProperty(name = "quarkus.redis.hosts")
    String hosts;

    @Inject
    DelayedScheduler scheduler;

    @Test
    void runsJobsOnAClusterOfOneNode() throws InterruptedException {
        assertTrue(hosts.startsWith("redis://127.0.0.1:"), hosts);
        assertTrue(RedisTestServer.command(hosts, "CLUSTER", "INFO").contains("cluster_state:ok"), "a cluster node");
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("dev-services", "ping:1", null, Duration.ofMillis(100)));
        assertTrue(Pinger.ran.await(10, TimeUnit.SECONDS));
    }
}
