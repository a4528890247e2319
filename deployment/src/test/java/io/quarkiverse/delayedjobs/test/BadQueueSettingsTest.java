package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A queue setting out of its range stops the application at startup with a message naming the queue, the setting,
 * the rule and the value.
 */
public class BadQueueSettingsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Eager.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "bad-settings")
            .overrideConfigKey("quarkus.delayed-jobs.queues.eager.claim-ahead", "2s")
            .assertException(refusedWith("quarkus.delayed-jobs.queues.\"eager\".claim-ahead must be between 0 and PT1S,"
                    + " was PT2S"));

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
