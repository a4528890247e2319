package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Redis comes back without its data (a restart without persistence: every key gone, every connection closed): the
 * instance registers its static schedules again and records the shard count of its queues again, so that a recurring
 * handler keeps firing without a restart of the application.
 */
public class RedisDataLossTest {

    static final String URL = RedisTestServer.sharedUrl("data-loss");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Ticker.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "data-loss");

    static class Ticker {
        static final AtomicInteger ticks = new AtomicInteger();

        @Delayed(value = "tick", cron = "* * * * * ?")
        void tick() {
            ticks.incrementAndGet();
        }
    }

    @Test
    void staticSchedulesAndShardCountsAreRegisteredAgain() {
        await().atMost(Duration.ofSeconds(10)).until(() -> Ticker.ticks.get() >= 2);
        // As a restart without persistence leaves it: no key, and the connections gone (the subscriber's among them).
        assertEquals("+OK", RedisTestServer.command(URL, "FLUSHALL"));
        RedisTestServer.command(URL, "CLIENT", "KILL", "TYPE", "pubsub");
        int ticksAtLoss = Ticker.ticks.get();
        // One occurrence claimed ahead before the loss may still fire; its end re-arms nothing, the job being gone.
        await().atMost(Duration.ofSeconds(10)).until(() -> Ticker.ticks.get() >= ticksAtLoss + 3);
        assertEquals(":1", RedisTestServer.command(URL, "EXISTS", "data-loss:{tick}:shards"));
    }
}
