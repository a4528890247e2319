package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * When Redis drops the connection that listens for wake-ups, the workers subscribe again and look at every shard, so a
 * job scheduled meanwhile still runs on time, with a poll interval of an hour.
 */
public class WakeChannelReconnectTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "reconnect")
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "1h");

    static class Handler {
        static final CountDownLatch ran = new CountDownLatch(2);

        @Delayed("after-kill")
        void run() {
            ran.countDown();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aKilledSubscriptionIsReplaced() throws InterruptedException {
        // Pub/sub clients of the shared server are this application's: the tests run one at a time.
        RedisTestServer.command(RedisTestServer.sharedUrl(), "CLIENT", "KILL", "TYPE", "pubsub");
        scheduler.schedule("after-kill", "right-after", null, Duration.ofMillis(200));
        scheduler.schedule("after-kill", "later", null, Duration.ofSeconds(3));
        assertTrue(Handler.ran.await(15, TimeUnit.SECONDS), "the jobs did not run after the subscription was killed");
    }
}
