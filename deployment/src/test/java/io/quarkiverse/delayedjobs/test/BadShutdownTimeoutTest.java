package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A stop waits up to shutdown-timeout for running handlers, which cannot be negative: the application refuses to start, naming
 * the setting.
 */
public class BadShutdownTimeoutTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "bad-shutdown-timeout")
            .overrideConfigKey("quarkus.delayed-jobs.shutdown-timeout", "-1s")
            .assertException(refusedWith("quarkus.delayed-jobs.shutdown-timeout must not be negative, was PT-1S"));

    static class Handler {
        @Delayed("bad-shutdown-timeout")
        void run() {
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
