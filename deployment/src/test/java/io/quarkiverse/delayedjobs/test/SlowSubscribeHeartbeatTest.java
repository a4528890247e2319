package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A heartbeat published while a new subscription's SUBSCRIBE is still on its way to Redis is lost to it, yet says
 * nothing of it: the subscription, which Redis takes a little later, stays. With a poll interval above 5 s no later
 * heartbeat came back in time, and the new subscription was closed and replaced once more.
 */
public class SlowSubscribeHeartbeatTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "slow-subscribe")
            // The SUBSCRIBE is held back longer than a poll interval: some heartbeat goes out while it is on its way.
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "5100ms");

    static class Handler {
        @Delayed("slow-subscribe")
        void run() {
        }
    }

    @Test
    void aHeartbeatSentBeforeRedisTookTheSubscribeDoesNotCloseIt() {
        int before = SilentProxy.subscribers();
        SilentProxy.delaySubscribes(5050);
        try {
            // Pub/sub clients of the shared server are this application's: the tests run one at a time.
            RedisTestServer.command(RedisTestServer.sharedUrl(), "CLIENT", "KILL", "TYPE", "pubsub");
            await().atMost(Duration.ofSeconds(5)).until(() -> SilentProxy.subscribers() == before + 1);
        } finally {
            SilentProxy.delaySubscribes(0);
        }
        // Redis takes the SUBSCRIBE about 5 s after it was sent; a heartbeat lost before is judged up to 10 s after.
        await().during(Duration.ofSeconds(12)).atMost(Duration.ofSeconds(13))
                .until(() -> SilentProxy.subscribers() == before + 1);
    }
}
