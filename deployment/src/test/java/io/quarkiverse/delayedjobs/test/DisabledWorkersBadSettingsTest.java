package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * An instance that runs no workers ({@code enabled=false}) checks the default queue settings as any other: a default
 * out of its range stops it at startup, with a message that names the key.
 */
public class DisabledWorkersBadSettingsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Eager.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "disabled-bad-settings")
            .overrideConfigKey("quarkus.delayed-jobs.enabled", "false")
            .overrideConfigKey("quarkus.delayed-jobs.lease", "10ms")
            .assertException(refusedWith("quarkus.delayed-jobs.lease must be between 1s and 1d, was PT0.01S"));

    static class Eager {
        @Delayed("eager")
        void run() {
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
