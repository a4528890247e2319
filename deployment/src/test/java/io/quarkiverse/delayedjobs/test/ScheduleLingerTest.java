package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.Vertx;

/**
 * With {@code schedule-linger}, jobs due later than a second wait up to the linger in the producer and go to Redis
 * together; a job due sooner goes at once and takes the waiting ones with it; a delay still counts from the schedule
 * call; a stop sends the waiting jobs at once. The application has no handler, so that every script call Redis counts
 * is a schedule call.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public class ScheduleLingerTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "schedule-linger")
            .overrideConfigKey("quarkus.delayed-jobs.queues.lingering.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.lingering.schedule-linger", "100ms")
            .overrideConfigKey("quarkus.delayed-jobs.queues.fresh.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.fresh.schedule-linger", "100ms");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Inject
    RedisDataSource redis;

    @Inject
    Vertx vertx;

    @Inject
    DelayedJobsEngine engine;

    @Inject
    JobStore store;

    @BeforeEach
    void loadScript() {
        // The first call of a script may need its text sent after a NOSCRIPT: a second call the counts would see.
        scheduler.schedule("lingering", "warm-up", "p", Duration.ZERO);
    }

    @Test
    void aSteadyStreamOfJobsGoesToRedisInAFewCalls() throws InterruptedException {
        int jobs = 40;
        long before = RedisTestServer.scriptCalls(redis);
        CountDownLatch stored = new CountDownLatch(jobs);
        AtomicInteger sent = new AtomicInteger();
        // One job every 5 ms, each due in a minute: 200 ms of jobs, two or three lingers.
        vertx.setPeriodic(5, timer -> {
            int i = sent.getAndIncrement();
            if (i >= jobs) {
                vertx.cancelTimer(timer);
                return;
            }
            reactive.schedule("lingering", "stream-" + i, "p", Duration.ofMinutes(1)).subscribe()
                    .with(result -> stored.countDown());
        });
        assertTrue(stored.await(10, TimeUnit.SECONDS), "not all jobs were stored");
        long calls = RedisTestServer.scriptCalls(redis) - before;
        assertTrue(calls <= jobs / 4, jobs + " jobs 5 ms apart took " + calls + " schedule calls");
        for (int i = 0; i < jobs; i++) {
            assertTrue(scheduler.find("lingering", "stream-" + i).isPresent(), "stream-" + i + " is missing");
        }
    }

    @Test
    void aJobDueSoonGoesAtOnceWithTheJobsWaitingForItsShard() throws Exception {
        CompletableFuture<ScheduleResult> later = reactive.schedule("lingering", "later", "p", Duration.ofMinutes(1))
                .subscribeAsCompletionStage();
        CompletableFuture<ScheduleResult> soon = reactive.schedule("lingering", "soon", "p", Duration.ofMillis(500))
                .subscribeAsCompletionStage();
        // A cancel never waits, and Redis answers calls in the order they were sent: these find the jobs only if both
        // went before the linger ended.
        assertTrue(scheduler.cancel("lingering", "soon"), "the job due soon waited for the linger");
        assertTrue(scheduler.cancel("lingering", "later"), "the job due later did not go with the job due soon");
        assertEquals(ScheduleResult.CREATED, soon.get(5, TimeUnit.SECONDS));
        assertEquals(ScheduleResult.CREATED, later.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aDelayCountsFromTheScheduleCallNotFromWhenTheJobReachesRedis() {
        // Redis runs on this machine: its clock is this clock.
        long before = System.currentTimeMillis();
        scheduler.schedule("lingering", "delayed", "p", Duration.ofMinutes(1));
        long after = System.currentTimeMillis();
        long counted = scheduler.find("lingering", "delayed").orElseThrow().dueAt().toEpochMilli() - 60_000;
        // Whole ms are taken off the delay: the job may count from up to 1 ms before the call, never after it.
        assertTrue(counted >= before - 1, "the delay counts from " + (counted - before) + " ms after the call");
        assertTrue(after - counted >= 90, "the call took " + (after - before) + " ms, the delay counts from "
                + (counted - before) + " ms after its start: from when the job reached Redis");
    }

    @Test
    void aDueTimeTheScriptRefusesFailsOnlyItsOwnJob() throws Exception {
        // The Java checks let no such due time through: the store is below them, as a producer whose clock lags
        // Redis's would be at the very end of the range.
        CompletableFuture<JobStore.Scheduled> neighbour = store.schedule("lingering", "neighbour", "\"p\"",
                System.currentTimeMillis() + 60_000, false, OnConflict.KEEP).toCompletionStage().toCompletableFuture();
        CompletableFuture<JobStore.Scheduled> tooLate = store.schedule("lingering", "too-late", "\"p\"",
                253_402_300_800_000L, false, OnConflict.KEEP).toCompletionStage().toCompletableFuture();

        // Both waited for the linger and went in one call, which the script refused as a whole.
        assertEquals(ScheduleResult.CREATED, neighbour.get(10, TimeUnit.SECONDS).result());
        ExecutionException refused = assertThrows(ExecutionException.class, () -> tooLate.get(10, TimeUnit.SECONDS));
        assertTrue(refused.getCause().getMessage().contains("ERR due must"), refused.getCause().getMessage());
        assertEquals(Optional.empty(), scheduler.find("lingering", "too-late"));
    }

    @Test
    @Order(Integer.MAX_VALUE) // last: the stop ends the linger for the rest of the application's life
    void aStopSendsTheWaitingJobsAtOnce() {
        CompletableFuture<ScheduleResult> waiting = reactive.schedule("lingering", "at-stop", "p", Duration.ofMinutes(1))
                .subscribeAsCompletionStage();
        engine.stop();
        // Sent after the stop's flush, so answered after it: it finds the job only if the stop sent it.
        assertTrue(scheduler.cancel("lingering", "at-stop"), "the stop left the waiting job waiting");
        assertEquals(ScheduleResult.CREATED, waiting.join());

        // Nor does a job of a queue first used after the stop wait.
        CompletableFuture<ScheduleResult> fresh = reactive.schedule("fresh", "after-stop", "p", Duration.ofMinutes(1))
                .subscribeAsCompletionStage();
        assertTrue(scheduler.cancel("fresh", "after-stop"), "a queue first used after the stop lingered");
        assertEquals(ScheduleResult.CREATED, fresh.join());
    }

}
