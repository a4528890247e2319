package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobDeadLettered;
import io.quarkiverse.delayedjobs.JobFailed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A synchronous observer sees the events of a job in the order they happened: {@link JobDeadLettered} once the
 * observer of the {@link JobFailed} of the same delivery returned, however long it took.
 */
public class JobEventOrderTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, Observers.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "job-event-order")
            .overrideConfigKey("quarkus.delayed-jobs.queues.ordered.max-attempts", "1");

    static class Handler {
        @Delayed("ordered")
        void run() {
            throw new IllegalStateException("downstream unavailable");
        }
    }

    static class Observers {
        static final List<String> seen = new CopyOnWriteArrayList<>();
        static final CountDownLatch deadLettered = new CountDownLatch(1);

        /** A slow observer (a database write, say): it is still running should the dead letter arrive meanwhile. */
        void failed(@Observes JobFailed event) throws InterruptedException {
            seen.add("failed: started");
            deadLettered.await(2, TimeUnit.SECONDS);
            seen.add("failed: returned");
        }

        void dead(@Observes JobDeadLettered event) {
            seen.add("dead-lettered");
            deadLettered.countDown();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theDeadLetterFollowsTheFailure() {
        scheduler.schedule("ordered", "job:1", null, Duration.ZERO);
        await().atMost(Duration.ofSeconds(15)).until(() -> Observers.seen.size() == 3);
        assertEquals(List.of("failed: started", "failed: returned", "dead-lettered"), Observers.seen);
    }
}
