package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A batch size larger than one script call may carry for a shard stops the application at startup, naming the queue,
 * the setting, the rule and the value.
 */
public class BadBatchSizeTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Eager.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "bad-batch-size")
            .overrideConfigKey("quarkus.delayed-jobs.queues.eager.batch-size", "1001")
            .assertException(refusedWith("quarkus.delayed-jobs.queues.\"eager\".batch-size must be at most 1000,"
                    + " was 1001"));

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
