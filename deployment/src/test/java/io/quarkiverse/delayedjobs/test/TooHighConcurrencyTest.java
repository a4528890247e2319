package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A concurrency meant as "unlimited" is refused at startup: at {@code Integer.MAX_VALUE} the claim planning's sum of
 * free slots and jobs to claim ahead overflowed, and the queue stopped claiming after its first handlers finished.
 */
public class TooHighConcurrencyTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "too-high-concurrency")
            .overrideConfigKey("quarkus.delayed-jobs.concurrency", "2147483647")
            .assertException(refusedWith("quarkus.delayed-jobs.concurrency must be at most 100000, was 2147483647"));

    static class Handler {
        @Delayed("unlimited")
        void run() {
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
