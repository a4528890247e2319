package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * Leases seen from the workers: a job claimed by a worker that then died is delivered again once the lease ran out;
 * a handler running longer than the lease keeps its claim and is not delivered twice.
 */
public class WorkerLeaseTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Orphans.class, Slow.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "lease")
            .overrideConfigKey("quarkus.delayed-jobs.queues.orphans.concurrency", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.slow.lease", "1s");

    record Delivery(String id, int attempt, Instant at) {
    }

    static class Orphans {
        static final CountDownLatch blockerStarted = new CountDownLatch(1);
        static final CountDownLatch releaseBlocker = new CountDownLatch(1);
        static final List<Delivery> deliveries = new CopyOnWriteArrayList<>();

        @Delayed("orphans")
        void run(JobContext context) throws InterruptedException {
            if (context.id().equals("blocker")) {
                blockerStarted.countDown();
                releaseBlocker.await(30, TimeUnit.SECONDS);
            } else {
                deliveries.add(new Delivery(context.id(), context.attempt(), Instant.now()));
            }
        }
    }

    static class Slow {
        static final Map<String, Integer> deliveries = new ConcurrentHashMap<>();
        static final CountDownLatch finished = new CountDownLatch(1);
        static volatile boolean leaseLostAtEnd = true;

        @Delayed("slow")
        void run(JobContext context) throws InterruptedException {
            deliveries.merge(context.id(), 1, Integer::sum);
            // Stands for work that takes 3.5 leases; nothing ever counts this latch down.
            new CountDownLatch(1).await(3500, TimeUnit.MILLISECONDS);
            leaseLostAtEnd = context.leaseLost();
            finished.countDown();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Test
    void aJobWhoseWorkerDiedIsDeliveredAgainAfterTheLease() throws Exception {
        // The one slot of this instance is taken, so the job below can only be claimed by the "other worker".
        scheduler.schedule("orphans", "blocker", null, Duration.ZERO);
        assertTrue(Orphans.blockerStarted.await(10, TimeUnit.SECONDS));

        scheduler.schedule("orphans", "orphan", null, Duration.ZERO);
        QueueKeys keys = store.queue("orphans").toCompletionStage().toCompletableFuture().get();
        QueueSettings dyingWorker = new QueueSettings(8, Duration.ofSeconds(1), 32, 16, Duration.ZERO, Duration.ZERO, 10,
                Duration.ofSeconds(1),
                Duration.ofHours(1));
        List<Claimed> claimed = store.claim(keys, keys.shardOf("orphan"), 10, 0, 0, dyingWorker, List.of()).toCompletionStage()
                .toCompletableFuture().get().jobs();
        Instant claimedAt = Instant.now();
        assertEquals(List.of("orphan"), claimed.stream().map(Claimed::id).toList());
        // The other worker never acks. This instance gets its slot back and finds the job once the lease ran out.
        Orphans.releaseBlocker.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> !Orphans.deliveries.isEmpty());
        Delivery again = Orphans.deliveries.get(0);
        assertEquals("orphan", again.id());
        assertEquals(2, again.attempt(), "the lost delivery counts as an attempt");
        assertFalse(again.at().isBefore(claimedAt.plusMillis(900)), "delivered again before the lease ran out");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("orphans", "orphan").isEmpty());
        assertEquals(1, Orphans.deliveries.size());
    }

    @Test
    void aHandlerRunningLongerThanTheLeaseKeepsItsClaim() throws Exception {
        scheduler.schedule("slow", "slow:1", null, Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Slow.deliveries.containsKey("slow:1"));
        JobInfo running = scheduler.find("slow", "slow:1").orElseThrow();
        assertEquals(JobInfo.State.RUNNING, running.state());
        assertEquals(1, running.attempts());

        assertTrue(Slow.finished.await(15, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("slow", "slow:1").isEmpty());
        assertEquals(Map.of("slow:1", 1), Slow.deliveries);
        assertFalse(Slow.leaseLostAtEnd);
    }
}
