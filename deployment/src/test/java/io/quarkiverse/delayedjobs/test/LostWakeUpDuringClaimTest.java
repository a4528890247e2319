package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A wake-up lost while the subscription was down is made up for once it is back, also when a claim of the shard was
 * under way then: that claim read the shard before the job arrived, and its answer must not stand for the look the
 * reconnect asked for. With a poll interval of an hour and a lease of ten minutes, nothing else looks at the shard
 * before the end of the test (the claimed job's lease ending is the shard's next time of interest).
 */
public class LostWakeUpDuringClaimTest {

    /** How long the claim's answer is held back: well beyond the replacement of the subscription (about 1 s). */
    private static final long HELD_BACK_MS = 6000;

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "lost-wake-up")
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "1h")
            // The claim's answer is held back: it must not time out.
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "60s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.late.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.late.lease", "10m");

    static class Handler {
        static final CountDownLatch lostRan = new CountDownLatch(1);

        @Delayed("late")
        void run(JobContext context) {
            if (context.id().equals("lost")) {
                lostRan.countDown();
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Test
    void aJobWhoseWakeUpWasLostRunsOnceTheSubscriptionIsBack() throws Exception {
        String redis = RedisTestServer.sharedUrl();
        // The worker learns of this job, and claims it at its due time.
        scheduler.schedule("late", "claimed", null, Instant.now().plusMillis(1500));
        CompletableFuture<ScheduleResult> lost;
        try {
            SilentProxy.delayCommandReplies(HELD_BACK_MS);
            // The claim ran in Redis; its answer is held back.
            await().atMost(Duration.ofSeconds(10)).until(() -> ":1".equals(
                    RedisTestServer.command(redis, "HEXISTS", "lost-wake-up:{late:0}:jobs", "claimed")));
            // A job arrives after the claim read the shard; its wake-up is lost on the silent subscription.
            SilentProxy.silenceSubscribers();
            lost = reactive.schedule("late", "lost", null, Duration.ZERO).subscribeAsCompletionStage();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> ":1".equals(RedisTestServer.command(redis, "ZCARD", "lost-wake-up:{late:0}:due")));
            // The subscription is replaced a second later, while the claim's answer is still held back.
            RedisTestServer.command(redis, "CLIENT", "KILL", "TYPE", "pubsub");
        } finally {
            SilentProxy.delayCommandReplies(0); // for the calls to come; the claim's answer stays held back
        }
        // Its answer comes with the claim's.
        assertEquals(ScheduleResult.CREATED, lost.get(30, TimeUnit.SECONDS));
        assertTrue(Handler.lostRan.await(20, TimeUnit.SECONDS), "the job whose wake-up was lost did not run");
    }
}
