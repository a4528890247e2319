package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
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
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Redis goes back in time (a restart from an older snapshot, or without persistence) while a job runs: the claims after it must
 * not
 * give the fencing token of that delivery to another job. Same tokens made one delivery's end drop the other's
 * renewals (the worker knows its deliveries by token), so that the other job ran a second time while it still ran, and
 * two jobs had the same {@code deliveryId()}, which handlers use as an idempotency key.
 */
public class LostCounterTest {

    static final String URL = RedisTestServer.sharedUrl("lost-counter");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Blocking.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "lost-counter")
            .overrideConfigKey("quarkus.delayed-jobs.queues.reused.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.reused.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.reused.claim-ahead", "0");

    static class Blocking {
        /** "job deliveryId", per delivery. */
        static final List<String> deliveries = new CopyOnWriteArrayList<>();
        static final CountDownLatch firstStarted = new CountDownLatch(1);
        static final CountDownLatch releaseFirst = new CountDownLatch(1);
        static final CountDownLatch secondStarted = new CountDownLatch(1);
        static final CountDownLatch releaseSecond = new CountDownLatch(1);

        @Delayed("reused")
        void run(JobContext job) throws InterruptedException {
            deliveries.add(job.id() + " " + job.deliveryId());
            if (job.id().equals("first")) {
                firstStarted.countDown();
                releaseFirst.await(20, TimeUnit.SECONDS);
            } else {
                secondStarted.countDown();
                releaseSecond.await(20, TimeUnit.SECONDS);
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aJobClaimedAfterRedisLostItsDataGetsATokenNotGivenBefore() throws Exception {
        scheduler.schedule("reused", "first", null, Duration.ZERO);
        assertTrue(Blocking.firstStarted.await(10, TimeUnit.SECONDS));
        // The claim counter rolled back to before the first job's claim, as a restart from an older snapshot leaves
        // it (a counter lost with every key reads as 0, below it); the first job's delivery goes on.
        String seq = new QueueKeys("lost-counter", "reused", 1).shard(0).get(5);
        long claimed = Long.parseLong(RedisTestServer.command(URL, "GET", seq));
        assertEquals("+OK", RedisTestServer.command(URL, "SET", seq, String.valueOf(claimed - 1)));
        scheduler.schedule("reused", "second", null, Duration.ZERO);
        assertTrue(Blocking.secondStarted.await(10, TimeUnit.SECONDS));
        Blocking.releaseFirst.countDown();
        try {
            String first = Blocking.deliveries.get(0);
            String second = Blocking.deliveries.get(1);
            assertNotEquals(first.substring(first.indexOf(' ')), second.substring(second.indexOf(' ')),
                    Blocking.deliveries::toString);
            // The first delivery's end leaves the second's renewals alone: over three of its leases, it runs once.
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                    .until(() -> Blocking.deliveries.size() == 2);
        } finally {
            Blocking.releaseSecond.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("reused", "second").isEmpty());
    }
}
