package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/** An instance that runs no workers ({@code enabled=false}) refuses a {@code catch-up-limit} below 1 at startup too. */
public class DisabledWorkersBadCatchUpLimitTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Eager.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "disabled-bad-catch-up")
            .overrideConfigKey("quarkus.delayed-jobs.enabled", "false")
            .overrideConfigKey("quarkus.delayed-jobs.catch-up-limit", "0")
            .assertException(refusedWith("quarkus.delayed-jobs.catch-up-limit must be 1 to 1000, was 0"));

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
