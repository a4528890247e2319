package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The engine's subscription to a Sentinel goes silent, as when the Sentinel's host is lost or the network cut without
 * either end told: the subscription leaves a {@code PING} unanswered, and the engine opens another. (Before, the silent
 * one stayed for good: with every Sentinel's gone that way, the engine heard of no switchover, and wrote to the old
 * master until Sentinel demoted it.)
 */
public class SentinelSilentTest {

    static final RedisTestServer.SentinelSetup REDIS = RedisTestServer.sentinel("silent");
    static final String PROXIED_SENTINEL = SilentProxy.url(REDIS.sentinelUrl());

    @RegisterExtension
    static final QuarkusUnitTest test = SentinelApp.on(REDIS, "silent")
            .overrideConfigKey("quarkus.redis.hosts", PROXIED_SENTINEL);

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aSilentSubscriptionIsOpenedAgain() {
        scheduler.schedule(SentinelApp.QUEUE, "first", "payload", Duration.ofHours(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> SilentProxy.subscribers() == 1);
        SilentProxy.silenceSubscribers();
        // A second subscription through the proxy, and the silent one closed: Sentinel has one open.
        await().atMost(Duration.ofSeconds(20)).until(() -> SilentProxy.subscribers() == 2);
        await().atMost(Duration.ofSeconds(5)).until(() -> RedisTestServer.subscribers(REDIS.sentinelUrl()) == 1);
    }
}
