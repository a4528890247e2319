package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import io.quarkus.test.QuarkusUnitTest;

/**
 * A handler that stops early once {@code JobContext.leaseLost()} turns true, as the docs suggest, and returns normally
 * has not done its work: its success must not remove the job, even when Redis kept the claim (its renewals arrived
 * late, not never). The job runs again.
 */
public class LeaseLostSuccessTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Quitter.class, RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "lease-lost-success")
            .overrideConfigKey("quarkus.delayed-jobs.queues.quit.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.quit.backoff.initial", "100ms");

    static class Quitter {
        static final List<String> deliveries = new CopyOnWriteArrayList<>();
        static final CountDownLatch firstStarted = new CountDownLatch(1);
        static volatile JobContext first;

        @Delayed("quit")
        void run(JobContext context) {
            deliveries.add(context.id() + "#" + context.attempt());
            if (context.attempt() == 1) {
                first = context;
                firstStarted.countDown();
                // Long work, given up once the lease is lost: returns normally without having done it.
                await().atMost(Duration.ofSeconds(20)).until(context::leaseLost);
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aSuccessAfterTheLeaseWasLostDoesNotRemoveTheJob() throws Exception {
        scheduler.schedule("quit", "work", null, Duration.ZERO);
        assertTrue(Quitter.firstStarted.await(10, TimeUnit.SECONDS));
        // Redis answers the renewals too late: this instance cannot count on the lease any more, though Redis keeps it.
        SilentProxy.delayCommandReplies(1500);
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> Quitter.first.leaseLost());
        } finally {
            SilentProxy.delayCommandReplies(0);
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> scheduler.find("quit", "work").isEmpty()
                && Quitter.deliveries.size() >= 2);
        assertEquals(List.of("work#1", "work#2"), Quitter.deliveries);
    }
}
