package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonObject;

/**
 * An application with no handler is ready when Redis runs the scripts, read on a queue of the check's own that it
 * leaves no key of, and alive with no worker, which the liveness check says.
 */
public class HealthNoHandlerTest {

    private static final String PREFIX = "health-no-handler";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(HealthEndpoints.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", PREFIX);

    @Test
    void readyWithoutWritingAndAliveWithoutWorkers() {
        JsonObject readiness = HealthEndpoints.readiness();
        assertEquals("UP", readiness.getString("status"), readiness.encode());
        assertEquals("health-check", readiness.getJsonObject("data").getString("queue"));
        assertEquals("*0", RedisTestServer.command(RedisTestServer.sharedUrl(), "KEYS", PREFIX + ":*"),
                "keys left by the readiness check");

        JsonObject liveness = HealthEndpoints.liveness();
        assertEquals("UP", liveness.getString("status"), liveness.encode());
        assertEquals("none: no @Delayed handler in this application",
                liveness.getJsonObject("data").getString("workers"));
    }
}
