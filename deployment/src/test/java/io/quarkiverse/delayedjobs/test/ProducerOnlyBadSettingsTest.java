package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/**
 * An application with no handler checks the settings of the queues its configuration names too: a setting out of its
 * range stops it at startup, rather than failing its first call on that queue as if the arguments were wrong.
 */
public class ProducerOnlyBadSettingsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "producer-only-bad-settings")
            .overrideConfigKey("quarkus.delayed-jobs.queues.other.shards", "0")
            .assertException(refusedWith("quarkus.delayed-jobs.queues.\"other\".shards must be between 1"
                    + " and 1024, was 0"));

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
