package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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
 * A handler still running when the stop's {@code shutdown-timeout} passed is left running, and its lease is no longer
 * renewed, so that another instance runs the job once it ends. The handler learns it from {@code leaseLost()}, as it
 * would of a lease lost otherwise, and can stop early rather than run alongside the new delivery (found by a review
 * helper: with no renewal timer left, nothing told it).
 */
public class AbandonedHandlerLeaseTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Polling.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "abandoned-handler-lease")
            .overrideConfigKey("quarkus.delayed-jobs.queues.polling.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.polling.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.shutdown-timeout", "1s");

    /** Works until told to end, checking {@code leaseLost()} as the docs suggest. */
    static class Polling {
        static final CountDownLatch started = new CountDownLatch(1);
        static final CountDownLatch sawLeaseLost = new CountDownLatch(1);
        static final CountDownLatch end = new CountDownLatch(1);

        @Delayed("polling")
        void run(JobContext context) throws InterruptedException {
            started.countDown();
            while (!end.await(20, TimeUnit.MILLISECONDS)) {
                if (context.leaseLost()) {
                    sawLeaseLost.countDown();
                    return;
                }
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    DelayedJobsEngine engine;

    @Inject
    JobStore store;

    @Test
    void anAbandonedHandlerLearnsThatItsLeaseEnded() throws Exception {
        try {
            scheduler.schedule("polling", "job", null, Duration.ZERO);
            assertTrue(Polling.started.await(10, TimeUnit.SECONDS));
            QueueKeys keys = store.queue("polling").toCompletionStage().toCompletableFuture().get();
            CompletableFuture.runAsync(engine::stop).get(10, TimeUnit.SECONDS);

            // Another instance's claim takes the job once the lease ran out.
            QueueSettings other = new QueueSettings(1, Duration.ofSeconds(30), 32, 16, Duration.ZERO, Duration.ZERO,
                    10, Duration.ofSeconds(1), Duration.ofHours(1));
            await().atMost(Duration.ofSeconds(5)).until(() -> !claimAsAnotherInstance(keys, other).isEmpty());
            assertEquals(1, Polling.end.getCount(), "the first delivery still runs");
            assertTrue(Polling.sawLeaseLost.await(5, TimeUnit.SECONDS),
                    "another instance claimed the job, yet the abandoned delivery's leaseLost() stayed false");
        } finally {
            Polling.end.countDown();
        }
    }

    private List<Claimed> claimAsAnotherInstance(QueueKeys keys, QueueSettings other) throws Exception {
        return store.claim(keys, 0, 1, 0, 0, other, List.of()).toCompletionStage().toCompletableFuture()
                .get(5, TimeUnit.SECONDS).jobs();
    }
}
