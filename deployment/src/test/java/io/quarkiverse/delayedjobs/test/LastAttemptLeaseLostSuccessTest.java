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
 * As {@link LeaseLostSuccessTest}, on the job's last attempt: a handler that returns normally after its instance lost
 * the lease (renewals answered too late, while Redis kept the claim) did not fail, and the job must not go to the dead
 * letters as a failed last attempt would. It is handed back and runs again, still on its last attempt.
 */
public class LastAttemptLeaseLostSuccessTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Quitter.class, RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "last-attempt-lease-lost")
            .overrideConfigKey("quarkus.delayed-jobs.queues.last.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.last.max-attempts", "1");

    static class Quitter {
        static final List<String> deliveries = new CopyOnWriteArrayList<>();
        static final CountDownLatch firstStarted = new CountDownLatch(1);
        static final CountDownLatch networkHealed = new CountDownLatch(1);
        static volatile JobContext first;

        @Delayed("last")
        void run(JobContext context) {
            deliveries.add(context.id() + "#" + context.attempt());
            if (first == null) {
                first = context;
                firstStarted.countDown();
                // Long work, given up once the lease is lost: returns normally without having done it.
                await().atMost(Duration.ofSeconds(20)).until(context::leaseLost);
                // Returns once the late replies are in: the next claim's answer comes within the lease.
                await().atMost(Duration.ofSeconds(20)).until(() -> networkHealed.getCount() == 0);
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aSuccessAfterTheLeaseWasLostOnTheLastAttemptRunsAgainRatherThanGoingToTheDeadLetters() throws Exception {
        scheduler.schedule("last", "work", null, Duration.ZERO);
        assertTrue(Quitter.firstStarted.await(10, TimeUnit.SECONDS));
        SilentProxy.delayCommandReplies(1500);
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> Quitter.first.leaseLost());
        } finally {
            SilentProxy.delayCommandReplies(0);
        }
        scheduler.find("last", "work"); // answered after the replies held back before it
        Quitter.networkHealed.countDown();
        await().atMost(Duration.ofSeconds(15)).until(() -> Quitter.deliveries.size() >= 2
                || !scheduler.deadLetters("last", 1).isEmpty());
        assertEquals(List.of(), scheduler.deadLetters("last", 1));
        await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.find("last", "work").isEmpty());
        assertEquals(List.of("work#1", "work#1"), Quitter.deliveries);
    }
}
