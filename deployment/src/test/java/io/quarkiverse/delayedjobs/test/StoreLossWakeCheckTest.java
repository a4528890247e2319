package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The store's connection is lost while the wake subscription went silent without a sign (what cut the one may have cut
 * the other). The loss makes the instance check its subscription at once, with a heartbeat, instead of at the next
 * poll interval (30 s here): the silent subscription is replaced within seconds.
 */
public class StoreLossWakeCheckTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "store-loss-wake-check");

    static class Handler {
        @Delayed("store-loss-wake-check")
        void run() {
        }
    }

    @Test
    void aLostStoreConnectionHasTheSubscriptionChecked() {
        int before = SilentProxy.subscribers();
        SilentProxy.silenceSubscribers();
        // The connections of the shared server's normal clients are this application's: the tests run one at a time.
        RedisTestServer.command(RedisTestServer.sharedUrl(), "CLIENT", "KILL", "TYPE", "normal");
        // The heartbeat sent at the loss does not come back within 5 s; a second later another connection subscribes.
        await().atMost(Duration.ofSeconds(12)).until(() -> SilentProxy.subscribers() > before);
    }
}
