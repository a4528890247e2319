package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonObject;

/**
 * A Redis that answers and reads but refuses writes (here {@code min-replicas-to-write 1} on a server with no
 * replica, as a master cut off from its replicas refuses them) fails every schedule, claim and ack: the readiness check
 * is DOWN with Redis's answer then, and UP again once Redis takes writes.
 */
public class HealthWritesRefusedTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(HealthEndpoints.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl("health-writes"))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "health-writes");

    @Inject
    DelayedScheduler scheduler;

    @Test
    void readinessIsDownWhileRedisRefusesWrites() {
        String url = RedisTestServer.sharedUrl("health-writes");
        assertEquals("UP", HealthEndpoints.readiness().getString("status"));

        RedisTestServer.command(url, "CONFIG", "SET", "min-replicas-to-write", "1");
        try {
            DelayedJobsException refused = assertThrows(DelayedJobsException.class,
                    () -> scheduler.schedule("refused", "job", "x", Duration.ofHours(1)));
            assertTrue(refused.getMessage().contains("NOREPLICAS"), refused.getMessage());
            JsonObject readiness = HealthEndpoints.get(HealthEndpoints.READY).check(HealthEndpoints.READINESS_CHECK);
            assertEquals("DOWN", readiness.getString("status"), readiness.encode());
            String error = readiness.getJsonObject("data").getString("error");
            assertTrue(error.startsWith("Redis failed to run health.lua: NOREPLICAS"), error);
        } finally {
            RedisTestServer.command(url, "CONFIG", "SET", "min-replicas-to-write", "0");
        }
        assertEquals("UP", HealthEndpoints.readiness().getString("status"));
    }
}
