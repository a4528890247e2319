package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonObject;

/** Workers that were stopped make the liveness check DOWN, each named with its state. */
public class HealthStoppedWorkerTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, HealthEndpoints.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "health-stopped");

    static class Handlers {
        @Delayed("health-first")
        void first() {
        }

        @Delayed("health-second")
        void second() {
        }
    }

    @Inject
    DelayedJobsEngine engine;

    @Test
    void livenessIsDownOnceTheWorkersStopped() {
        JsonObject liveness = HealthEndpoints.liveness();
        assertEquals("UP", liveness.getString("status"), liveness.encode());
        assertEquals(new JsonObject().put("health-first", "alive").put("health-second", "alive"),
                liveness.getJsonObject("data"));

        engine.stop();

        HealthEndpoints.Answer live = HealthEndpoints.get(HealthEndpoints.LIVE);
        assertEquals(503, live.status(), live.body());
        liveness = live.check(HealthEndpoints.LIVENESS_CHECK);
        assertEquals("DOWN", liveness.getString("status"), liveness.encode());
        assertEquals(new JsonObject().put("health-first", "stopped").put("health-second", "stopped"),
                liveness.getJsonObject("data"));
    }
}
