package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A handler still running at {@code shutdown-timeout}: its lease is renewed while the stop waits for it, and no longer
 * once the stop gave up on it, so that another instance runs its job once the lease ran out. The stop says so, and
 * not that acks were left unwritten: those of the jobs that finished before went with the claims of their shard.
 */
public class StuckAtShutdownTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Stuck.class, RedisTestServer.class, LoggedMessages.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "stuck")
            .overrideConfigKey("quarkus.delayed-jobs.queues.stuck.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.stuck.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.shutdown-timeout", "3s");

    static class Stuck {
        static final CountDownLatch started = new CountDownLatch(1);
        static final CountDownLatch release = new CountDownLatch(1);

        @Delayed("stuck")
        void run(JobContext context) throws InterruptedException {
            if (context.id().startsWith("quick")) {
                return;
            }
            started.countDown();
            release.await(60, TimeUnit.SECONDS);
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    DelayedJobsEngine engine;

    @Inject
    JobStore store;

    @Test
    void theLeaseIsRenewedUntilTheTimeoutAndNotAfter() throws Exception {
        LoggedMessages warnings = LoggedMessages.of("io.quarkiverse.delayedjobs", Level.WARNING);
        try {
            // Jobs due 20 ms apart: the ack of each rides on a claim of the shard that comes within claim-ahead.
            Instant first = Instant.now().plusMillis(200);
            for (int i = 0; i < 20; i++) {
                scheduler.schedule("stuck", "quick-" + i, null, first.plusMillis(20L * i));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.stats("stuck"),
                    s -> s.pending() == 0 && s.running() == 0);
            scheduler.schedule("stuck", "job", null, Duration.ZERO);
            assertTrue(Stuck.started.await(10, TimeUnit.SECONDS));
            QueueKeys keys = store.queue("stuck").toCompletionStage().toCompletableFuture().get();
            QueueSettings other = new QueueSettings(1, Duration.ofSeconds(30), 32, 16, Duration.ZERO, Duration.ZERO, 10,
                    Duration.ofSeconds(1), Duration.ofHours(1));

            CompletableFuture<Void> stopped = CompletableFuture.runAsync(engine::stop);
            // While the stop waits for the handler (twice the lease), its claim holds.
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                    .until(() -> claimByOther(keys, other).isEmpty());
            stopped.get(10, TimeUnit.SECONDS);
            // The stop gave up on it: its job is another instance's once the lease ran out.
            await().atMost(Duration.ofSeconds(5)).until(() -> !claimByOther(keys, other).isEmpty());
        } finally {
            Stuck.release.countDown();
            warnings.close();
        }
        assertTrue(
                warnings.messages().stream().anyMatch(w -> w.contains("1 delayed-jobs handlers of queue stuck still running")),
                warnings.messages().toString());
        assertTrue(warnings.messages().stream().noneMatch(w -> w.contains("not acknowledged")), warnings.messages().toString());
    }

    private List<Claimed> claimByOther(QueueKeys keys, QueueSettings other) throws Exception {
        return store.claim(keys, 0, 1, 0, 0, other, List.of()).toCompletionStage().toCompletableFuture()
                .get(5, TimeUnit.SECONDS).jobs();
    }
}
