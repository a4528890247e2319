package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Redis at {@code maxmemory} under {@code noeviction} refuses new jobs, and nothing else: the leases of running jobs
 * are renewed, their acknowledgements written, a pending job cancelled. (Before, Redis refused the renewals, whose
 * first write may grow memory, and not the claims, whose first write does not: a pressure trial saw each running job
 * claimed again once a lease long, up to ten copies of one job running at once, and healthy jobs dead-lettered.)
 */
public class OutOfMemoryTest {

    static final String URL = RedisTestServer.sharedUrl("out-of-memory");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Held.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "out-of-memory")
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.claim-ahead", "0s");

    static class Held {
        static final List<String> deliveries = new CopyOnWriteArrayList<>();
        static final CountDownLatch started = new CountDownLatch(3);
        static final CountDownLatch release = new CountDownLatch(1);

        @Delayed("held")
        void run(JobContext context) throws InterruptedException {
            deliveries.add(context.id() + "#" + context.attempt());
            started.countDown();
            assertTrue(release.await(30, TimeUnit.SECONDS));
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void runningJobsKeepTheirClaimsAndEndWhileNewJobsAreRefused() throws Exception {
        for (String id : List.of("a", "b", "c")) {
            scheduler.schedule("held", id, null, Duration.ZERO);
        }
        scheduler.schedule("held", "later", null, Duration.ofHours(1));
        assertTrue(Held.started.await(10, TimeUnit.SECONDS));
        assertEquals("+OK", RedisTestServer.command(URL, "CONFIG", "SET", "maxmemory", "1"));
        try {
            DelayedJobsException refused = assertThrows(DelayedJobsException.class,
                    () -> scheduler.schedule("held", "new", null, Duration.ZERO));
            assertTrue(refused.getMessage().contains("OOM"), refused.getMessage());
            // Three leases long: each running job keeps its one delivery.
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
                    .until(() -> Held.deliveries.size() == 3);
            assertTrue(scheduler.cancel("held", "later"));
            Held.release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.stats("held").running() == 0);
        } finally {
            Held.release.countDown();
            RedisTestServer.command(URL, "CONFIG", "SET", "maxmemory", "0");
        }
        assertEquals(Set.of("a#1", "b#1", "c#1"), Set.copyOf(Held.deliveries));
        assertEquals(0, scheduler.stats("held").pending());
        assertEquals(0, scheduler.stats("held").dead());
        assertTrue(scheduler.find("held", "new").isEmpty());
    }
}
