package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/** {@code quarkus.delayed-jobs.health.enabled=false}: the endpoints answer without the extension's checks. */
public class HealthDisabledTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, HealthEndpoints.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "health-disabled")
            .overrideConfigKey("quarkus.delayed-jobs.health.enabled", "false");

    static class Handler {
        @Delayed("health-disabled")
        void run() {
        }
    }

    @Test
    void noCheckOfTheExtension() {
        HealthEndpoints.Answer ready = HealthEndpoints.get(HealthEndpoints.READY);
        assertEquals(200, ready.status(), ready.body());
        assertNotNull(ready.check("Redis connection health check"), ready.body());
        assertNull(ready.check(HealthEndpoints.READINESS_CHECK), ready.body());

        HealthEndpoints.Answer live = HealthEndpoints.get(HealthEndpoints.LIVE);
        assertEquals(200, live.status(), live.body());
        assertNull(live.check(HealthEndpoints.LIVENESS_CHECK), live.body());
    }
}
