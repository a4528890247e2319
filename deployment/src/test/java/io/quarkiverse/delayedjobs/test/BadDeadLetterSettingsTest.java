package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A dead-letter retention of zero would delete every dead letter the moment it is written (the job that failed is
 * gone without trace, nothing to inspect or requeue): the application refuses to start, naming the setting.
 */
public class BadDeadLetterSettingsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Doomed.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "bad-dead-letter-settings")
            .overrideConfigKey("quarkus.delayed-jobs.dead-letter.retention", "0s")
            .assertException(refusedWith("quarkus.delayed-jobs.dead-letter.retention must be at least 1ms, was PT0S"));

    static class Doomed {
        @Delayed("doomed")
        void run() {
            throw new IllegalStateException("doomed");
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
