package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.annotation.NonBlocking;

/**
 * A job claimed ahead whose lease ends while the worker's thread is stalled past it (a long GC pause or a frozen VM,
 * here a handler that holds the worker's event loop) does not start on that claim once the thread goes on: another
 * instance may have claimed and run it meanwhile. It is handed back, and runs on a claim of its own.
 */
public class PausedPastLeaseTest {

    static final String URL = RedisTestServer.sharedUrl();

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Stall.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "paused")
            .overrideConfigKey("quarkus.delayed-jobs.queues.stalled.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.stalled.lease", "3s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.stalled.claim-ahead", "1s");

    static class Stall {
        /** "job deliveryId", per delivery. */
        static final List<String> deliveries = new CopyOnWriteArrayList<>();
        static final CountDownLatch stalling = new CountDownLatch(1);

        /** Runs on the queue worker's event loop, so the stall holds the worker's timers and renewals too. */
        @NonBlocking
        @Delayed("stalled")
        void run(JobContext job) {
            deliveries.add(job.id() + " " + job.deliveryId());
            if (job.id().equals("stall") && job.attempt() == 1) {
                stalling.countDown();
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5000); // a pause, not a wait for anything
                while (System.nanoTime() - end < 0) {
                    LockSupport.parkNanos(end - System.nanoTime());
                }
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aHeldJobWhoseLeaseEndedDuringAStallStartsOnANewClaim() throws Exception {
        // Both claimed ahead. The held job falls due 50 ms into the stall (its handler is on the stalled loop by then),
        // most likely before the worker's next renewal (one a second), which would drop it for the same reason.
        Instant stallDue = Instant.now().plusMillis(500);
        scheduler.schedule("stalled", "stall", null, stallDue);
        scheduler.schedule("stalled", "held", null, stallDue.plusMillis(50));
        assertTrue(Stall.stalling.await(10, TimeUnit.SECONDS));
        String jobs = new QueueKeys("paused", "stalled", 1).shard(0).get(2);
        // The held job's envelope, due|attempts|token|payload: the token of the claim whose lease ends in the stall.
        String envelope = RedisTestServer.command(URL, "HGET", jobs, "held");
        String stalledToken = envelope.split("\\|", 4)[2];
        await().atMost(Duration.ofSeconds(30)).until(() -> scheduler.find("stalled", "held").isEmpty());
        List<String> held = Stall.deliveries.stream().filter(d -> d.startsWith("held ")).toList();
        assertEquals(1, held.size(), Stall.deliveries::toString);
        assertNotEquals("held stalled/0/" + stalledToken, held.get(0), "started on the claim whose lease ended");
    }
}
