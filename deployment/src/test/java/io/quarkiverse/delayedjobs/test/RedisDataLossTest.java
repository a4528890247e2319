package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Redis comes back without its data (a restart without persistence: every key gone, every connection closed): the
 * instance registers its static schedules again and records the shard count of its queues again, so that a recurring
 * handler keeps firing without a restart of the application; a registration Redis refuses then (while it loads its
 * files, say) is tried again until Redis takes it.
 */
public class RedisDataLossTest {

    static final String URL = RedisTestServer.sharedUrl("data-loss");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Ticker.class, RedisTestServer.class, LoggedMessages.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "data-loss")
            .overrideConfigKey("quarkus.log.category.\"" + DelayedJobsEngine.class.getName() + "\".level", "DEBUG");

    static class Ticker {
        static final AtomicInteger ticks = new AtomicInteger();

        @Delayed(value = "tick", cron = "* * * * * ?")
        void tick() {
            ticks.incrementAndGet();
        }
    }

    @Inject
    DelayedScheduler scheduler;

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

    /** As a Redis that restarted from its files and answers LOADING for a while: the registration is tried again. */
    @Test
    void aRegistrationRefusedWhenRedisCameBackIsTriedAgain() {
        await().atMost(Duration.ofSeconds(10)).until(() -> Ticker.ticks.get() >= 1);
        // The first refusal is a WARN, the next ones DEBUG (logged by outage).
        try (LoggedMessages logged = LoggedMessages.of(DelayedJobsEngine.class.getName(), Level.FINE)) {
            assertEquals("+OK", RedisTestServer.command(URL, "ACL", "SETUSER", "default", "-eval", "-evalsha"));
            try {
                assertEquals("+OK", RedisTestServer.command(URL, "FLUSHALL"));
                RedisTestServer.command(URL, "CLIENT", "KILL", "TYPE", "pubsub");
                await().atMost(Duration.ofSeconds(10)).until(() -> logged.messages().stream()
                        .filter(m -> m.startsWith("Could not register the static schedule of")).count() >= 2);
            } finally {
                assertEquals("+OK", RedisTestServer.command(URL, "ACL", "SETUSER", "default", "+eval", "+evalsha"));
            }
        }
        int ticksBack = Ticker.ticks.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> Ticker.ticks.get() >= ticksBack + 2);
        assertTrue(scheduler.find("tick", "tick").isPresent());
    }
}
