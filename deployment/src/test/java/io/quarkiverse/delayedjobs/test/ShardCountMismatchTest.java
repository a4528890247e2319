package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * An instance configured with another shard count than the one recorded in Redis for a queue refuses to start and
 * says what to change, in a {@code ConfigurationException} that Quarkus prints alone, as for a setting out of range.
 */
public class ShardCountMismatchTest {

    static final String URL = RedisTestServer.sharedUrl();

    static {
        // An earlier deployment recorded 4 shards for the queue; this one is configured with the default 8.
        assertEquals("+OK", RedisTestServer.command(URL, "SET", "mismatch:{sharded}:shards", "4"));
    }

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Sharded.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "mismatch")
            .assertException(refusedWith("Queue 'sharded' has 4 shards recorded in Redis (key"
                    + " mismatch:{sharded}:shards) but this instance is configured with 8: set"
                    + " quarkus.delayed-jobs.queues.\"sharded\".shards=4 (the shard count cannot change while the"
                    + " queue has jobs)"));

    static class Sharded {
        @Delayed("sharded")
        void run() {
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
