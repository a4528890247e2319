package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * An idle worker looks at Redis at least every poll-interval, so zero makes no sense: the application refuses to start, naming
 * the setting.
 */
public class BadPollIntervalTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "bad-poll-interval")
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "0s")
            .assertException(refusedWith("quarkus.delayed-jobs.poll-interval must be at least 1ms, was PT0S"));

    static class Handler {
        @Delayed("bad-poll-interval")
        void run() {
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
