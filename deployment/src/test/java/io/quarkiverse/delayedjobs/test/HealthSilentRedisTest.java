package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonObject;

/**
 * A Redis that stops answering (the connection goes silent behind {@link SilentProxy}) makes the readiness check DOWN
 * within its 3 s bound, well before {@code redis-timeout}, so that it never holds the health endpoint; once the
 * connection is replaced, the check is UP again.
 */
public class HealthSilentRedisTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(HealthEndpoints.class, RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "health-silent")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "8s")
            // The Redis client's own check would hold the endpoint for its timeout (10 s) on its silenced connection.
            .overrideConfigKey("quarkus.redis.health.enabled", "false");

    @Test
    void readinessIsDownWithinItsBoundWhenRedisDoesNotAnswer() {
        // Opens the extension's connection, which is then silenced.
        await().atMost(Duration.ofSeconds(10)).until(() -> "UP".equals(HealthEndpoints.readiness().getString("status")));

        SilentProxy.silenceAll();
        long start = System.nanoTime();
        JsonObject readiness = HealthEndpoints.readiness();
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals("DOWN", readiness.getString("status"), readiness.encode());
        assertEquals("Redis did not answer within 3000 ms", readiness.getJsonObject("data").getString("error"));
        assertTrue(tookMs >= 3000 && tookMs < 6000, "the readiness check answered after " + tookMs + " ms");

        // redis-timeout after the call, the silent connection is replaced.
        await().atMost(Duration.ofSeconds(20)).until(() -> "UP".equals(HealthEndpoints.readiness().getString("status")));
    }
}
