package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A lease beyond a day is refused at startup, naming the override's whole key: far beyond, the end of a claim's lease
 * in nanoseconds overflowed and its jobs were held for ever, never started.
 */
public class TooLongLeaseTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "too-long-lease")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"huge-lease\".lease", "200000d")
            .assertException(refusedWith(
                    "quarkus.delayed-jobs.queues.\"huge-lease\".lease must be between 1s and 1d, was PT4800000H"));

    static class Handler {
        @Delayed("huge-lease")
        void run() {
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
