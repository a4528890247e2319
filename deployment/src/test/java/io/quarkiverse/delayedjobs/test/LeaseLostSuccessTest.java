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
 * late, not never). The job runs again; on its last attempt it is handed back rather than moved to the dead letters as
 * a failed last attempt would be, and runs again, still on its last attempt.
 */
public class LeaseLostSuccessTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Quitter.class, RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "lease-lost-success")
            .overrideConfigKey("quarkus.delayed-jobs.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.quit.backoff.initial", "100ms")
            .overrideConfigKey("quarkus.delayed-jobs.queues.last.max-attempts", "1");

    /** Each queue's first delivery works until its lease is lost, then returns normally without having done it. */
    static class Quitter {
        static final List<String> deliveries = new CopyOnWriteArrayList<>();
        static volatile CountDownLatch firstStarted;
        static volatile CountDownLatch networkHealed;
        static volatile JobContext first;

        @Delayed("quit")
        void quit(JobContext context) {
            run(context);
        }

        @Delayed("last")
        void last(JobContext context) {
            run(context);
        }

        private void run(JobContext context) {
            deliveries.add(context.queue() + ":" + context.id() + "#" + context.attempt());
            if (first == null) {
                first = context;
                firstStarted.countDown();
                await().atMost(Duration.ofSeconds(20)).until(context::leaseLost);
                // Returns once the late replies are in: the next claim's answer comes within the lease.
                await().atMost(Duration.ofSeconds(20)).until(() -> networkHealed.getCount() == 0);
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aSuccessAfterTheLeaseWasLostDoesNotRemoveTheJob() throws Exception {
        loseTheLeaseOfTheFirstDelivery("quit");
        await().atMost(Duration.ofSeconds(15)).until(() -> scheduler.find("quit", "work").isEmpty()
                && Quitter.deliveries.size() >= 2);
        assertEquals(List.of("quit:work#1", "quit:work#2"), Quitter.deliveries);
    }

    @Test
    void onTheLastAttemptItRunsAgainRatherThanGoingToTheDeadLetters() throws Exception {
        loseTheLeaseOfTheFirstDelivery("last");
        await().atMost(Duration.ofSeconds(15)).until(() -> Quitter.deliveries.size() >= 2
                || !scheduler.deadLetters("last", 1).isEmpty());
        assertEquals(List.of(), scheduler.deadLetters("last", 1));
        await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.find("last", "work").isEmpty());
        assertEquals(List.of("last:work#1", "last:work#1"), Quitter.deliveries);
    }

    /** Redis answers the renewals too late: this instance cannot count on the lease any more, though Redis keeps it. */
    private void loseTheLeaseOfTheFirstDelivery(String queue) throws InterruptedException {
        Quitter.deliveries.clear();
        Quitter.first = null;
        Quitter.firstStarted = new CountDownLatch(1);
        Quitter.networkHealed = new CountDownLatch(1);
        scheduler.schedule(queue, "work", null, Duration.ZERO);
        assertTrue(Quitter.firstStarted.await(10, TimeUnit.SECONDS));
        SilentProxy.delayCommandReplies(1500);
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> Quitter.first.leaseLost());
        } finally {
            SilentProxy.delayCommandReplies(0);
        }
        scheduler.find(queue, "work"); // answered after the replies held back before it
        Quitter.networkHealed.countDown();
    }
}
