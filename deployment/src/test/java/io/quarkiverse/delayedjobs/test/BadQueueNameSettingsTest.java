package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/**
 * Settings under a name that no queue can have would be ignored for ever, a typo nobody sees: the application refuses
 * to start and names the key.
 */
public class BadQueueNameSettingsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "bad-queue-name-settings")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"help email\".lease", "1m")
            .assertException(refusedWith("quarkus.delayed-jobs.queues.\"help email\" names no queue: queue must match"
                    + " [A-Za-z0-9._-]{1,64}, was 'help email'"));

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
