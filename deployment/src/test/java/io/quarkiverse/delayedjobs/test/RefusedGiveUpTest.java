package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * An occurrence of a recurring job given up after its leases ran out, whose write Redis refused, is written again, as
 * a refused retry is: left as it was, it would stay claimed, and its schedule would fire no more, as long as another
 * job of its claim runs here and renews the claim's one lease. The write fails here because the shard's error hash
 * holds a value of another type, which only the retry script writes to.
 */
public class RefusedGiveUpTest {

    static final String URL = RedisTestServer.sharedUrl("refused-give-up");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "refused-give-up")
            // Claims only when told of a due job: the lease made to run out below waits for the plain job.
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "1h")
            .overrideConfigKey("quarkus.delayed-jobs.queues.mixed.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.mixed.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.mixed.claim-ahead", "0s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.mixed.max-attempts", "1");

    static class Handlers {
        static final CountDownLatch longStarted = new CountDownLatch(1);
        static final CountDownLatch releaseLong = new CountDownLatch(1);

        @Delayed("mixed")
        void run(JobContext context) throws InterruptedException {
            if (context.id().equals("long")) {
                longStarted.countDown();
                assertTrue(releaseLong.await(30, TimeUnit.SECONDS));
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Test
    void aRefusedGiveUpIsWrittenAgainWhileAnotherJobOfItsClaimRuns() throws Exception {
        scheduler.recurring("mixed", "hourly", "0 0 * * * ?", ZoneOffset.UTC, null);
        QueueKeys keys = store.queue("mixed").toCompletionStage().toCompletableFuture().get();
        List<String> shardKeys = keys.shard(0);
        // A worker that then dies claims the occurrence ahead, on its one allowed attempt.
        QueueSettings dyingWorker = new QueueSettings(1, Duration.ofSeconds(1), 32, 16, Duration.ZERO, Duration.ZERO, 1,
                Duration.ofSeconds(1), Duration.ofHours(1));
        List<Claimed> claimed = store.claim(keys, 0, 0, Duration.ofHours(2).toMillis(), 1, dyingWorker, List.of())
                .toCompletionStage().toCompletableFuture().get().jobs();
        assertEquals(List.of("hourly"), claimed.stream().map(Claimed::id).toList());
        String claim = claimed.get(0).token().substring(0, claimed.get(0).token().indexOf('.'));
        long occurrence = claimed.get(0).dueMs();

        try {
            assertEquals("+OK", RedisTestServer.command(URL, "SET", shardKeys.get(4), "not a hash"));
            // Its lease runs out now; the plain job due at once makes this instance claim both in one call.
            assertEquals(":0", RedisTestServer.command(URL, "ZADD", shardKeys.get(1), "XX", "0", claim));
            scheduler.schedule("mixed", "long", null, Duration.ZERO);
            assertTrue(Handlers.longStarted.await(10, TimeUnit.SECONDS));
            // Redis refused the write of the given-up occurrence.
            await().atMost(Duration.ofSeconds(10)).until(
                    () -> RedisTestServer.command(URL, "INFO", "errorstats").contains("errorstat_WRONGTYPE:count="));
            // Still running: find() reads the error hash too, so the envelope is looked at directly.
            assertEquals(":1", RedisTestServer.command(URL, "HEXISTS", shardKeys.get(2), "hourly"));
        } finally {
            RedisTestServer.command(URL, "DEL", shardKeys.get(4));
        }
        try {
            // The lease is 1 s, yet the handler of "long" renews the claim of both jobs while it runs.
            await().atMost(Duration.ofSeconds(8)).until(
                    () -> scheduler.find("mixed", "hourly").orElseThrow().state() == JobInfo.State.PENDING);
            JobInfo armed = scheduler.find("mixed", "hourly").orElseThrow();
            assertTrue(armed.dueAt().toEpochMilli() > occurrence, "the next occurrence is armed: " + armed);
            assertEquals("lease expired on attempt 1 of 1; occurrence given up", armed.lastError());
        } finally {
            Handlers.releaseLong.countDown();
        }
    }
}
