package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A handler whose lease cannot be renewed (Redis unreachable from this instance) learns from
 * {@code JobContext.leaseLost()} once the lease has run out: another worker may run its job by then.
 */
public class UnrenewableLeaseTest {

    static final String URL = RedisTestServer.sharedUrl("unrenewable");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Lengthy.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "unrenewable")
            .overrideConfigKey("quarkus.delayed-jobs.queues.long.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.shutdown-timeout", "1s");

    static class Lengthy {
        static volatile JobContext context;
        static final CountDownLatch started = new CountDownLatch(1);
        static final CountDownLatch release = new CountDownLatch(1);

        @Delayed("long")
        void run(JobContext ctx) throws InterruptedException {
            context = ctx;
            started.countDown();
            release.await(30, TimeUnit.SECONDS);
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void leaseLostTurnsTrueOnceTheLeaseRanOutUnrenewed() throws Exception {
        scheduler.schedule("long", "job", null, Duration.ZERO);
        assertTrue(Lengthy.started.await(10, TimeUnit.SECONDS));
        assertFalse(Lengthy.context.leaseLost());

        RedisTestServer.shutdown(URL);
        try {
            // The 1 s lease can no longer be renewed: once it ran out, the claim is not this worker's to count on.
            await().atMost(Duration.ofSeconds(5)).until(() -> Lengthy.context.leaseLost());
        } finally {
            Lengthy.release.countDown();
        }
    }
}
