package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The store's connection closes when the application stops (the container destroys the store after the
 * {@code ShutdownEvent}): the {@code schedule} calls still in flight then, and those waiting behind them in the
 * producer, get Redis's answer rather than a closed connection, and a call made once the store closed is refused.
 */
public class InFlightAtStopTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "in-flight-at-stop");

    @Inject
    ReactiveDelayedScheduler reactive;

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Test
    void schedulesInFlightWhenTheStoreClosesAreAnswered() throws Exception {
        assertAnsweredThenRefused(reactive, scheduler, store, List.of(RedisTestServer.sharedUrl()));
    }

    /** The test, on the Redis servers at {@code nodes}, which hold every key of the prefix {@code in-flight-at-stop}. */
    static void assertAnsweredThenRefused(ReactiveDelayedScheduler reactive, DelayedScheduler scheduler, JobStore store,
            List<String> nodes) throws Exception {
        scheduler.schedule("closing", "warm-up", "p", Duration.ofHours(1)); // the shard count and the script, known
        int jobs = 2_000;
        List<CompletableFuture<ScheduleResult>> calls = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            calls.add(reactive.schedule("closing", "job-" + i, "payload of job " + i, Duration.ofHours(1))
                    .subscribeAsCompletionStage());
        }
        store.close(); // as the container does when the application stops

        List<String> failures = new ArrayList<>();
        for (CompletableFuture<ScheduleResult> call : calls) {
            try {
                assertEquals(ScheduleResult.CREATED, call.get(10, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                failures.add(e.getCause().getMessage());
            }
        }
        assertEquals(List.of(), failures.stream().distinct().toList(), "calls made before the store closed");
        long pending = 0;
        for (String node : nodes) {
            pending += Long.parseLong(RedisTestServer.command(node, "EVAL", "local n = 0"
                    + " for _, k in ipairs(redis.call('KEYS', 'in-flight-at-stop:*}:due')) do n = n + redis.call('ZCARD', k) end"
                    + " return n", "0").substring(1));
        }
        assertEquals(jobs + 1, pending, "jobs pending in Redis");

        DelayedJobsException refused = assertThrows(DelayedJobsException.class,
                () -> scheduler.schedule("closing", "late", "p", Duration.ofHours(1)));
        assertTrue(refused.getMessage().contains("closed"), refused.getMessage());
    }
}
