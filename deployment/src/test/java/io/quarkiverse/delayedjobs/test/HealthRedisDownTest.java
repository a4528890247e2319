package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.HealthEndpoints.LIVE;
import static io.quarkiverse.delayedjobs.test.HealthEndpoints.LIVENESS_CHECK;
import static io.quarkiverse.delayedjobs.test.HealthEndpoints.READINESS_CHECK;
import static io.quarkiverse.delayedjobs.test.HealthEndpoints.READY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonObject;

/**
 * When Redis is gone, the readiness check is DOWN and gives the error of the call, while the liveness check stays UP:
 * the worker still runs, and restarting the instance would not bring Redis back.
 */
public class HealthRedisDownTest {

    static final String URL = RedisTestServer.sharedUrl("health-down");
    private static final String QUEUE = "health-down";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, HealthEndpoints.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "health-down");

    static class Handler {
        @Delayed(QUEUE)
        void run() {
        }
    }

    @Test
    void readinessIsDownWithTheErrorAndLivenessStaysUp() {
        assertEquals("UP", HealthEndpoints.readiness().getString("status"));

        RedisTestServer.shutdown(URL);

        HealthEndpoints.Answer ready = HealthEndpoints.get(READY);
        assertEquals(503, ready.status(), ready.body());
        JsonObject readiness = ready.check(READINESS_CHECK);
        assertEquals("DOWN", readiness.getString("status"), readiness.encode());
        JsonObject data = readiness.getJsonObject("data");
        assertEquals(QUEUE, data.getString("queue"));
        assertTrue(data.getString("error").startsWith("Redis failed to run health.lua: "), data.encode());

        HealthEndpoints.Answer live = HealthEndpoints.get(LIVE);
        assertEquals(200, live.status(), live.body());
        JsonObject liveness = live.check(LIVENESS_CHECK);
        assertEquals("UP", liveness.getString("status"), liveness.encode());
        assertEquals("alive", liveness.getJsonObject("data").getString(QUEUE));
    }
}
