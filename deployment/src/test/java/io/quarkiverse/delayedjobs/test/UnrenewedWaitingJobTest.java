package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
import io.quarkus.test.QuarkusUnitTest;

/**
 * A job waiting for a handler whose lease this instance could not renew in time (Redis answered too late) does not
 * start here, and is handed back: otherwise it would stay claimed, and run nowhere, as long as another job of its
 * claim runs here, since that job's renewals keep the claim's one lease alive.
 */
public class UnrenewedWaitingJobTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Pair.class, RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "unrenewed-waiting")
            .overrideConfigKey("quarkus.delayed-jobs.queues.pair.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.pair.concurrency", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.pair.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.pair.claim-ahead", "1s");

    static class Pair {
        static volatile JobContext longContext;
        static final CountDownLatch longStarted = new CountDownLatch(1);
        static final CountDownLatch releaseLong = new CountDownLatch(1);
        static final List<String> delivered = new CopyOnWriteArrayList<>();

        @Delayed("pair")
        void run(JobContext context) throws InterruptedException {
            delivered.add(context.id() + "#" + context.attempt());
            if (context.id().equals("long")) {
                longContext = context;
                longStarted.countDown();
                assertTrue(releaseLong.await(30, TimeUnit.SECONDS));
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aWaitingJobWhoseLeaseRanOutUnrenewedIsHandedBack() throws Exception {
        // Due within claim-ahead of each other: one claim takes both ahead, and the later one then waits for the one
        // handler.
        Instant longDue = Instant.now().plusMillis(400);
        Instant waitingDue = longDue.plusMillis(50);
        scheduler.schedule("pair", "waiting", null, waitingDue);
        scheduler.schedule("pair", "long", null, longDue);
        try {
            assertTrue(Pair.longStarted.await(10, TimeUnit.SECONDS));
            await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(waitingDue.plusMillis(100)));
            assertEquals(JobInfo.State.RUNNING, scheduler.find("pair", "waiting").map(JobInfo::state).orElse(null),
                    "precondition: claimed with the other job");
            assertEquals(List.of("long#1"), Pair.delivered, "precondition: the job waits for the handler");

            // Redis answers the renewals too late: this instance cannot count on the lease any more.
            SilentProxy.delayCommandReplies(1500);
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> Pair.longContext.leaseLost());
            } finally {
                SilentProxy.delayCommandReplies(0);
            }
            // The waiting job did not start here; it must be free for any instance again, not claimed for ever.
            await().atMost(Duration.ofSeconds(5)).until(
                    () -> scheduler.find("pair", "waiting").map(JobInfo::state).orElse(null) == JobInfo.State.PENDING
                            || Pair.delivered.stream().anyMatch(d -> d.startsWith("waiting")));
        } finally {
            Pair.releaseLong.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("pair", "waiting").isEmpty()
                && scheduler.find("pair", "long").isEmpty());
        assertEquals(1, Pair.delivered.stream().filter(d -> d.startsWith("waiting")).count(), Pair.delivered.toString());
    }
}
