package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;

/**
 * The calls of the engine share one pipelined connection, whatever their number: more calls in flight than the Redis
 * client's waiting queue holds ({@code quarkus.redis.max-waiting-handlers}, 2048 by default) wait for room, rather
 * than fail.
 */
public class ManyCallsInFlightTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "many-in-flight");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Test
    void moreCallsInFlightThanTheClientQueueHoldsAllGetTheirAnswer() {
        // Opens the connection, records the shard count and loads the script.
        assertEquals(Optional.empty(), scheduler.find("lookups", "warm-up"));
        // Redis holds every command for 1 s, so that all the calls below are in flight at once.
        assertEquals("+OK", RedisTestServer.command(RedisTestServer.sharedUrl(), "CLIENT", "PAUSE", "1000", "ALL"));
        List<Uni<Optional<JobInfo>>> calls = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            calls.add(reactive.find("lookups", "job-" + i));
        }
        List<Optional<JobInfo>> found = Uni.join().all(calls).andFailFast().await().atMost(Duration.ofSeconds(30));
        assertEquals(3000, found.size());
        found.forEach(f -> assertEquals(Optional.empty(), f));
    }
}
