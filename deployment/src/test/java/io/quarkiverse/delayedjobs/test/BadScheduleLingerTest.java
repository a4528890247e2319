package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A default schedule linger beyond 100 ms stops the application at startup with a message naming the key, the rule
 * and the value: each schedule call would complete that much later.
 */
public class BadScheduleLingerTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Lingering.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "bad-linger")
            .overrideConfigKey("quarkus.delayed-jobs.schedule-linger", "1s")
            .assertException(refusedWith("quarkus.delayed-jobs.schedule-linger must be between 0 and PT0.1S, was PT1S"));

    static class Lingering {
        @Delayed("lingering")
        void run() {
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
