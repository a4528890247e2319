package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A graceful stop lets the running handler finish and record its success, and hands back at once the jobs that were
 * claimed but had not started, without counting an attempt: those waiting for a handler and one claimed ahead of its
 * due time.
 */
public class GracefulShutdownTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Busy.class, RedisTestServer.class, LoggedMessages.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "shutdown")
            .overrideConfigKey("quarkus.delayed-jobs.queues.busy.concurrency", "4")
            // One shard and a long claim-ahead: the claim of the four due jobs also takes a job due 900 ms later.
            .overrideConfigKey("quarkus.delayed-jobs.queues.busy.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.busy.claim-ahead", "1s")
            // One worker thread: of the four claimed jobs, one runs and three wait for the thread.
            .overrideConfigKey("quarkus.thread-pool.max-threads", "1");

    static class Busy {
        static final Set<String> started = ConcurrentHashMap.newKeySet();
        static final Set<String> finished = ConcurrentHashMap.newKeySet();
        static final CountDownLatch gate = new CountDownLatch(1);

        @Delayed("busy")
        void run(String id) throws InterruptedException {
            started.add(id);
            gate.await(30, TimeUnit.SECONDS);
            finished.add(id);
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    DelayedJobsEngine engine;

    @Test
    void runningHandlersFinishAndClaimedJobsAreHandedBack() throws Exception {
        Instant laterDue = Instant.now().plusMillis(900).truncatedTo(ChronoUnit.MILLIS);
        scheduler.schedule("busy", "later", "later", laterDue);
        for (int i = 0; i < 4; i++) {
            scheduler.schedule("busy", "job-" + i, "job-" + i, Duration.ZERO);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> Busy.started.size() == 1
                && scheduler.stats("busy").running() == 5);

        CompletableFuture<Void> stopped;
        try (LoggedMessages logged = LoggedMessages.of("io.quarkiverse.delayedjobs.runtime.worker", Level.INFO)) {
            stopped = CompletableFuture.runAsync(engine::stop);
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.stats("busy").pending() == 4);
            // The operator is told what the stop does with the queue's jobs.
            await().atMost(Duration.ofSeconds(5)).until(() -> logged.messages().contains(
                    "Stopping the delayed-jobs worker of queue busy: 4 claimed jobs not started handed back, 1 handlers"
                            + " still running (waiting up to quarkus.delayed-jobs.shutdown-timeout)"));
        }
        JobInfo later = scheduler.find("busy", "later").orElseThrow();
        assertEquals(JobInfo.State.PENDING, later.state());
        assertEquals(laterDue.toEpochMilli(), later.dueAt().toEpochMilli());
        assertEquals(0, later.attempts(), "the held job did not use an attempt");
        QueueStats stats = scheduler.stats("busy");
        assertEquals(1, stats.running(), "the started handler keeps its claim while it finishes");

        Busy.gate.countDown();
        stopped.get(10, TimeUnit.SECONDS);
        String ran = Busy.started.iterator().next();
        assertEquals(Set.of(ran), Busy.finished);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("busy", ran).isEmpty());
        assertEquals(1, Busy.started.size(), "no handler started after the stop");

        for (int i = 0; i < 4; i++) {
            String id = "job-" + i;
            if (!id.equals(ran)) {
                JobInfo info = scheduler.find("busy", id).orElseThrow();
                assertEquals(JobInfo.State.PENDING, info.state());
                assertEquals(0, info.attempts(), "a handed-back job did not use an attempt");
            }
        }
        assertEquals(0, scheduler.stats("busy").running());
    }
}
