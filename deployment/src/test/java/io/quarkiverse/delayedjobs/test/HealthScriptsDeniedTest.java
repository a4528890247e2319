package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonObject;

/**
 * A Redis that answers but refuses the scripts (here an ACL that denies {@code EVALSHA} and {@code EVAL} to the
 * application's user) makes the readiness check DOWN with Redis's answer, though a PING still works; it is UP again
 * once the scripts are allowed.
 */
public class HealthScriptsDeniedTest {

    private static final String USER = "healthacl";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(HealthEndpoints.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", urlWithUser())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "health-acl");

    /** A server of this test's own, whose ACL it changes, and a user that may do everything to begin with. */
    private static String urlWithUser() {
        String url = RedisTestServer.sharedUrl("health-acl");
        RedisTestServer.command(url, "ACL", "SETUSER", USER, "on", ">secret", "~*", "&*", "+@all");
        return url.replace("redis://", "redis://" + USER + ":secret@");
    }

    @Test
    void readinessIsDownWhileRedisRefusesTheScripts() {
        String url = RedisTestServer.sharedUrl("health-acl");
        assertEquals("UP", HealthEndpoints.readiness().getString("status"));

        RedisTestServer.command(url, "ACL", "SETUSER", USER, "-evalsha", "-eval");
        HealthEndpoints.Answer ready = HealthEndpoints.get(HealthEndpoints.READY);
        JsonObject readiness = ready.check(HealthEndpoints.READINESS_CHECK);
        assertEquals("DOWN", readiness.getString("status"), readiness.encode());
        String error = readiness.getJsonObject("data").getString("error");
        assertTrue(error.startsWith("Redis failed to run health.lua: NOPERM"), error);
        // The Redis client's own check only pings, which the user may still do.
        assertEquals("UP", ready.check("Redis connection health check").getString("status"), ready.body());

        RedisTestServer.command(url, "ACL", "SETUSER", USER, "+evalsha", "+eval");
        assertEquals("UP", HealthEndpoints.readiness().getString("status"));
    }
}
