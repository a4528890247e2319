package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobFailed;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.JobSucceeded;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A job cancelled or replaced while its handler runs: the handler sees {@code leaseLost()} at once, not at the next
 * renewal (a third of the 30 s lease here), and its outcome is a failure that is not retried. (Before, a handler that
 * returned before that renewal fired {@code JobSucceeded} and counted as succeeded, for a job whose success Redis did
 * not record: two trials saw it.)
 */
public class EndedWhileRunningTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Work.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "ended-while-running");

    static class Work {
        static final Map<String, JobContext> running = new ConcurrentHashMap<>();
        static final CountDownLatch started = new CountDownLatch(3);
        static final CountDownLatch release = new CountDownLatch(1);
        static final List<String> outcomes = new CopyOnWriteArrayList<>();

        @Delayed("work")
        void run(JobContext context) throws InterruptedException {
            running.put(context.id(), context);
            started.countDown();
            assertTrue(release.await(30, TimeUnit.SECONDS));
            if (context.id().equals("failing")) {
                throw new IllegalStateException("boom");
            }
        }

        void succeeded(@Observes JobSucceeded event) {
            outcomes.add("succeeded " + event.job().id());
        }

        void failed(@Observes JobFailed event) {
            outcomes.add("failed " + event.job().id() + ": " + event.failure().getMessage());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theHandlerLearnsAtOnceAndItsOutcomeIsNotASuccess() throws Exception {
        for (String id : List.of("cancelled", "replaced", "failing")) {
            scheduler.schedule("work", id, null, Duration.ZERO);
        }
        try {
            assertTrue(Work.started.await(10, TimeUnit.SECONDS));
            assertTrue(scheduler.cancel("work", "cancelled"));
            scheduler.schedule("work", "replaced", "new", Duration.ofHours(1), OnConflict.REPLACE);
            assertTrue(scheduler.cancel("work", "failing"));
            await().atMost(Duration.ofSeconds(5)).until(() -> Work.running.values().stream()
                    .allMatch(JobContext::leaseLost));
        } finally {
            Work.release.countDown();
        }
        String ended = "a producer cancelled or replaced the job while its handler ran (JobContext.leaseLost()): its"
                + " success is not recorded";
        await().atMost(Duration.ofSeconds(5)).until(() -> Work.outcomes.size() == 3);
        assertEquals(List.of("failed cancelled: " + ended, "failed failing: boom", "failed replaced: " + ended),
                Work.outcomes.stream().sorted().toList());
        assertTrue(scheduler.find("work", "cancelled").isEmpty());
        assertTrue(scheduler.find("work", "failing").isEmpty(), "not retried");
        JobInfo replacement = scheduler.find("work", "replaced").orElseThrow();
        assertEquals(JobInfo.State.PENDING, replacement.state());
        assertEquals(0, replacement.attempts());
        assertEquals(0, scheduler.stats("work").dead());
    }
}
