package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The master stops answering (a frozen process) and Sentinel fails over to its replica. The calls in flight on the
 * frozen master fail as soon as the new master is announced, and the next ones go to it, while the old master is still
 * frozen. Before, they waited for {@code redis-timeout} (30 s here), and every call of the queue queued behind them; a
 * master that thawed before then took them, and the switch dropped them although their callers were told they
 * succeeded.
 */
public class SentinelFrozenMasterTest {

    static final RedisTestServer.SentinelSetup REDIS = RedisTestServer.sentinel("frozen-master");

    @RegisterExtension
    static final QuarkusUnitTest test = SentinelApp.on(REDIS, "frozen-master")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "30s");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Test
    void callsLeaveAFrozenMasterWhenItsReplicaIsAnnounced() throws Exception {
        assertEquals(ScheduleResult.CREATED, scheduler.schedule(SentinelApp.QUEUE, "before", "p", Duration.ofHours(1)));
        RedisTestServer.freeze(REDIS.masterUrl());
        try {
            CompletableFuture<ScheduleResult> inFlight = reactive
                    .schedule(SentinelApp.QUEUE, "in-flight", "p", Duration.ofHours(1)).subscribeAsCompletionStage();
            String newAddress = "address=" + REDIS.replicaUrl().substring("redis://".length());
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> RedisTestServer.command(REDIS.sentinelUrl(), "INFO", "sentinel").contains(newAddress));
            // It failed: its caller knows that it is not stored (the frozen master may take it once it thaws).
            await().atMost(Duration.ofSeconds(3)).until(inFlight::isDone);
            assertTrue(inFlight.isCompletedExceptionally());
            assertEquals(ScheduleResult.CREATED, scheduler.schedule(SentinelApp.QUEUE, "after", "p", Duration.ofHours(1)));
            QueueKeys keys = new QueueKeys("frozen-master", SentinelApp.QUEUE, 8);
            assertEquals(":1", RedisTestServer.command(REDIS.replicaUrl(), "EXISTS", keys.shard(keys.shardOf("after")).get(0)),
                    "the job is on the new master");
        } finally {
            RedisTestServer.thaw(REDIS.masterUrl());
        }
    }
}
