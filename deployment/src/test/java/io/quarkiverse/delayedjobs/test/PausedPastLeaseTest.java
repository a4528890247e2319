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
import java.util.concurrent.atomic.AtomicReference;
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
 * A job whose lease ends while the worker's thread is stalled past it (a long GC pause or a frozen VM, here a handler
 * that holds the worker's event loop) does not start on that claim once the thread goes on: another instance may have
 * claimed and run it meanwhile. It is handed back, and runs on a claim of its own. So for a job claimed ahead, held
 * until its due time, and for one handed to its handler's thread before the stall, which takes it up after.
 */
public class PausedPastLeaseTest {

    static final String URL = RedisTestServer.sharedUrl();

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Stall.class, Lapse.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "paused")
            .overrideConfigKey("quarkus.delayed-jobs.queues.stalled.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.stalled.lease", "3s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.stalled.claim-ahead", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.lapsing.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.lapsing.lease", "3s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.lapsing.claim-ahead", "0s");

    /** Holds the event loop it runs on for five seconds: a pause, not a wait for anything. */
    static void stallFiveSeconds() {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5000);
        while (System.nanoTime() - end < 0) {
            LockSupport.parkNanos(end - System.nanoTime());
        }
    }

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
                stallFiveSeconds();
            }
        }
    }

    static class Lapse {
        static final List<String> deliveries = new CopyOnWriteArrayList<>();
        static final AtomicReference<String> stalled = new AtomicReference<>();
        static final CountDownLatch stalling = new CountDownLatch(1);

        /** The first job to start stalls the loop, whichever of the two the claim put first. */
        @NonBlocking
        @Delayed("lapsing")
        void run(JobContext job) {
            deliveries.add(job.id() + " " + job.deliveryId());
            if (stalled.compareAndSet(null, job.id())) {
                stalling.countDown();
                stallFiveSeconds();
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

    @Test
    void aJobHandedToItsThreadBeforeAStallStartsOnANewClaim() throws Exception {
        // Due in the same ms, with nothing claimed ahead: one claim takes both and hands both to the event loop at
        // once. The first to start stalls the loop; the other is taken up only after that, past its lease.
        Instant due = Instant.now().plusMillis(500);
        scheduler.schedule("lapsing", "one", null, due);
        scheduler.schedule("lapsing", "two", null, due);
        assertTrue(Lapse.stalling.await(10, TimeUnit.SECONDS));
        String waiter = Lapse.stalled.get().equals("one") ? "two" : "one";
        String jobs = new QueueKeys("paused", "lapsing", 1).shard(0).get(2);
        String stalledToken = RedisTestServer.command(URL, "HGET", jobs, waiter).split("\\|", 4)[2];
        await().atMost(Duration.ofSeconds(30)).until(() -> scheduler.find("lapsing", waiter).isEmpty());
        List<String> waited = Lapse.deliveries.stream().filter(d -> d.startsWith(waiter + " ")).toList();
        assertEquals(1, waited.size(), Lapse.deliveries::toString);
        assertNotEquals(waiter + " lapsing/0/" + stalledToken, waited.get(0), "started on the claim whose lease ended");
    }
}
