package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A claimed job that waits for a free handler, past its due time, does not start once a producer cancels or replaces
 * it: the script revokes its claim on the wake channel, and the worker drops it at once rather than at its next lease
 * renewal (which finds the claim lost).
 */
public class WaitingJobEndedTest {

    private static final String WORKER_CATEGORY = "io.quarkiverse.delayedjobs.runtime.worker.QueueWorker";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Busy.class, RedisTestServer.class, LoggedMessages.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "waiting-ended")
            .overrideConfigKey("quarkus.delayed-jobs.queues.busy.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.busy.concurrency", "1")
            // The jobs due in 300 ms are claimed while the one handler is busy, and wait for it once due.
            .overrideConfigKey("quarkus.delayed-jobs.queues.busy.claim-ahead", "1s")
            // Renewals every 100 s: within the test, only the revokes can drop the jobs.
            .overrideConfigKey("quarkus.delayed-jobs.queues.busy.lease", "5m")
            // Drops are logged at DEBUG: the test waits for them before it frees the handler.
            .overrideConfigKey("quarkus.log.category.\"" + WORKER_CATEGORY + "\".level", "DEBUG");

    static class Busy {
        static final CountDownLatch release = new CountDownLatch(1);
        static final Map<String, List<String>> starts = new ConcurrentHashMap<>();

        @Delayed("busy")
        void run(String payload, JobContext context) throws InterruptedException {
            starts.computeIfAbsent(context.id(), id -> new CopyOnWriteArrayList<>()).add(payload);
            if (context.id().equals("blocker")) {
                assertTrue(Busy.release.await(30, TimeUnit.SECONDS), "the test never freed the handler");
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    RedisDataSource redis;

    @Test
    void aWaitingJobEndedByAProducerDoesNotStart() {
        LoggedMessages logged = LoggedMessages.of(WORKER_CATEGORY, Level.ALL);
        try {
            scheduler.schedule("busy", "blocker", "x", Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> Busy.starts.containsKey("blocker"));

            scheduler.schedule("busy", "cancelled", "old", Duration.ofMillis(300));
            scheduler.schedule("busy", "replaced", "old", Duration.ofMillis(300));
            long due = scheduler.find("busy", "cancelled").orElseThrow().dueAt().toEpochMilli();
            // Claimed, and due by the Redis clock: a handler could start them now, if one were free.
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(
                    () -> running("cancelled") && running("replaced") && redisNowMs() > due);

            assertTrue(scheduler.cancel("busy", "cancelled"));
            assertEquals(ScheduleResult.REPLACED,
                    scheduler.schedule("busy", "replaced", "new", Duration.ZERO, OnConflict.REPLACE));
            await().atMost(Duration.ofSeconds(10)).until(
                    () -> logged.messages().stream().filter(m -> m != null && m.contains("it does not start")).count() == 2);
        } finally {
            logged.close();
            Busy.release.countDown();
        }

        // With the handler free, the replacing job runs; the two that waited for it never start.
        await().atMost(Duration.ofSeconds(10)).until(() -> Busy.starts.containsKey("replaced"));
        assertEquals(List.of("new"), Busy.starts.get("replaced"), "the replaced job's claim started");
        assertFalse(Busy.starts.containsKey("cancelled"), "the cancelled job started");
    }

    private boolean running(String id) {
        return scheduler.find("busy", id).map(JobInfo::state).orElse(null) == JobInfo.State.RUNNING;
    }

    private long redisNowMs() {
        var time = redis.execute("TIME");
        return time.get(0).toLong() * 1000 + time.get(1).toLong() / 1000;
    }
}
