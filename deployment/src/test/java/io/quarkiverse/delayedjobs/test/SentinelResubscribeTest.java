package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The engine listens on each Sentinel (three here). Its subscription to one of them ends without an error, as when a
 * Sentinel restarts: it is opened again, on that Sentinel, and the next switchover is followed as soon as it is announced, by
 * the calls and by the wake
 * subscription, while the old master still takes writes. (The Vert.x client's own subscription never came back, and the engine
 * wrote to the old master until Sentinel
 * demoted it, some 10 s later; an operations trial lost 722 acknowledged schedules in one switchover that way.)
 */
public class SentinelResubscribeTest {

    static final RedisTestServer.SentinelSetup REDIS = RedisTestServer.sentinel("resubscribe", 3);

    @RegisterExtension
    static final QuarkusUnitTest test = SentinelApp.on(REDIS, "resubscribe");

    @Inject
    DelayedScheduler scheduler;

    /**
     * Whether each Sentinel has the engine's subscription, and one only (one per instance; the Vert.x client's own
     * failover is off).
     */
    private static boolean subscribed() {
        return REDIS.sentinelUrls().stream().allMatch(sentinel -> RedisTestServer.subscribers(sentinel) == 1);
    }

    @Test
    void aSwitchoverAfterTheSubscriptionEndedIsFollowedWhenAnnounced() {
        scheduler.schedule(SentinelApp.QUEUE, "first", "payload", Duration.ofHours(1));
        // One on each Sentinel: before, a client of one Sentinel asked it for the others and opened its subscription on
        // any of them, so that two could land on the same Sentinel and none on another (an operations trial).
        await().atMost(Duration.ofSeconds(10)).until(SentinelResubscribeTest::subscribed);
        String second = REDIS.sentinelUrls().get(1);
        RedisTestServer.command(second, "CLIENT", "KILL", "TYPE", "pubsub");
        await().atMost(Duration.ofSeconds(5)).until(SentinelResubscribeTest::subscribed);

        AtomicInteger next = new AtomicInteger();
        ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor();
        producer.scheduleAtFixedRate(() -> {
            try {
                scheduler.schedule(SentinelApp.QUEUE, "job:" + next.incrementAndGet(), "payload", Duration.ofHours(1));
            } catch (RuntimeException e) {
                // a call in flight on the old master as the engine left it: its caller knows
            }
        }, 0, 20, TimeUnit.MILLISECONDS);
        try {
            assertEquals("+OK", RedisTestServer.command(REDIS.sentinelUrl(), "SENTINEL", "FAILOVER", "mymaster"));
            String newAddress = "address=" + REDIS.replicaUrl().substring("redis://".length());
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> RedisTestServer.command(REDIS.sentinelUrl(), "INFO", "sentinel").contains(newAddress));
            await().atMost(Duration.ofSeconds(5)).until(
                    () -> RedisTestServer.command(REDIS.replicaUrl(), "CLIENT", "LIST").contains("cmd=evalsha"));
            // The wake subscription too: on the old master it would hear nothing the scripts publish on the new one.
            // (Sentinel subscribes to every server too: the channels tell the engine's subscription apart.)
            await().atMost(Duration.ofSeconds(3)).until(() -> !"*0".equals(RedisTestServer
                    .command(REDIS.replicaUrl(), "PUBSUB", "CHANNELS", "resubscribe:heartbeat:*")));
            assertTrue(RedisTestServer.isMaster(REDIS.masterUrl()),
                    "the old master was demoted already: the engine may have followed the demotion, not the announcement");
        } finally {
            producer.shutdownNow();
        }
    }
}
