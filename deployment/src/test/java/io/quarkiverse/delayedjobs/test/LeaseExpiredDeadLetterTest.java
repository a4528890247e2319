package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobDeadLettered;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A job whose worker died on its last attempt goes to the dead letters when another worker's claim finds its lease
 * run out; that worker tells of it as of any move to the dead letters: a {@link JobDeadLettered} event (and the
 * dead-lettered counter, through the same listener) and a warning, which used to be missing for this way in.
 */
public class LeaseExpiredDeadLetterTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, Observer.class, LoggedMessages.class,
                    RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "lease-expired-dead")
            .overrideConfigKey("quarkus.delayed-jobs.queues.doomed.concurrency", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.doomed.max-attempts", "1");

    static class Handler {
        static final CountDownLatch blockerStarted = new CountDownLatch(1);
        static final CountDownLatch releaseBlocker = new CountDownLatch(1);
        static final List<String> ran = new CopyOnWriteArrayList<>();

        @Delayed("doomed")
        void run(JobContext context) throws InterruptedException {
            ran.add(context.id());
            if (context.id().equals("blocker")) {
                blockerStarted.countDown();
                releaseBlocker.await(30, TimeUnit.SECONDS);
            }
        }
    }

    static class Observer {
        static final List<JobDeadLettered> dead = new CopyOnWriteArrayList<>();

        void dead(@Observes JobDeadLettered event) {
            dead.add(event);
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Test
    void aJobBuriedByAClaimAfterItsLastLeaseRanOutIsToldOf() throws Exception {
        // The one slot of this instance is taken, so the job below can only be claimed by the "dying worker".
        scheduler.schedule("doomed", "blocker", null, Duration.ZERO);
        assertTrue(Handler.blockerStarted.await(10, TimeUnit.SECONDS));
        scheduler.schedule("doomed", "orphan", null, Duration.ZERO);
        QueueKeys keys = store.queue("doomed").toCompletionStage().toCompletableFuture().get();
        QueueSettings dyingWorker = new QueueSettings(8, Duration.ofSeconds(1), 32, 16, Duration.ZERO, Duration.ZERO, 1,
                Duration.ofSeconds(1), Duration.ofHours(1));
        List<Claimed> claimed = store.claim(keys, keys.shardOf("orphan"), 10, 0, 0, dyingWorker, List.of())
                .toCompletionStage().toCompletableFuture().get().jobs();
        assertEquals(List.of("orphan"), claimed.stream().map(Claimed::id).toList());
        String lostToken = claimed.get(0).token();
        // The dying worker never acks. This instance's next claim of the shard, once the lease ran out, buries it.
        List<String> warnings;
        try (LoggedMessages logged = LoggedMessages.of("io.quarkiverse.delayedjobs", Level.WARNING)) {
            Handler.releaseBlocker.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> !Observer.dead.isEmpty());
            // Told once: no second event comes.
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                    .untilAsserted(() -> assertEquals(1, Observer.dead.size(), "JobDeadLettered events"));
            warnings = List.copyOf(logged.messages());
        }
        // And one warning, as for a failed last attempt.
        assertEquals(List.of("job orphan of queue doomed (attempt 1) moved to the dead letters:"
                + " lease expired on attempt 1 of 1"),
                warnings.stream().filter(m -> m.contains("dead letters")).toList(), "warnings: " + warnings);
        JobDeadLettered event = Observer.dead.get(0);
        assertEquals("orphan", event.job().id());
        assertEquals("doomed", event.job().queue());
        assertEquals(1, event.job().attempt());
        assertTrue(event.job().leaseLost());
        assertTrue(event.job().deliveryId().contains(lostToken), event.job().deliveryId());
        assertEquals("lease expired on attempt 1 of 1", event.failure().getMessage());
        JobInfo info = scheduler.find("doomed", "orphan").orElseThrow();
        assertEquals(JobInfo.State.DEAD, info.state());
        assertEquals("lease expired on attempt 1 of 1", info.lastError());
        assertEquals(List.of("blocker"), Handler.ran);
    }
}
