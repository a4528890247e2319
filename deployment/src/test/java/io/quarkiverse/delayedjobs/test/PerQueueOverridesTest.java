package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;

/** Overrides of a queue whose name has dots (quoted in the key) apply to that queue's worker. */
public class PerQueueOverridesTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Invoices.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "overrides")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"billing.invoices\".shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"billing.invoices\".concurrency", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"billing.invoices\".lease", "2s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"billing.invoices\".claim-ahead", "0");

    static class Invoices {
        static final AtomicInteger active = new AtomicInteger();
        static final AtomicInteger most = new AtomicInteger();
        static final AtomicInteger done = new AtomicInteger();
        static final CountDownLatch firstStarted = new CountDownLatch(1);
        static final CountDownLatch release = new CountDownLatch(1);

        @Delayed("billing.invoices")
        void run() throws InterruptedException {
            most.accumulateAndGet(active.incrementAndGet(), Math::max);
            firstStarted.countDown();
            release.await(30, TimeUnit.SECONDS);
            active.decrementAndGet();
            done.incrementAndGet();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Inject
    RedisDataSource redis;

    @Test
    void dottedQueueOverridesApply() throws Exception {
        for (int i = 0; i < 3; i++) {
            scheduler.schedule("billing.invoices", "inv-" + i, null, Duration.ZERO);
        }
        assertTrue(Invoices.firstStarted.await(10, TimeUnit.SECONDS));
        QueueKeys keys = store.queue("billing.invoices").toCompletionStage().toCompletableFuture().get();
        assertEquals(1, keys.shards());
        // The running claim's lease ends about 2 s from now, not 30 s.
        long now = System.currentTimeMillis();
        var leases = redis.sortedSet(String.class).zrangeWithScores(keys.shard(0).get(1), 0, -1);
        assertEquals(1, leases.size(), "one claim: concurrency 1 claims one job");
        double leaseEnd = leases.get(0).score();
        assertTrue(leaseEnd - now <= 2500, "lease ends in " + (leaseEnd - now) + " ms");
        Invoices.release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> Invoices.done.get() == 3);
        assertEquals(1, Invoices.most.get());
    }
}
