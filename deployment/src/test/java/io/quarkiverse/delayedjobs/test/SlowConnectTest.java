package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Inject;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Opening a connection takes several round trips (here HELLO and SELECT), a call only one. On a network slow enough
 * that opening takes longer than {@code redis-timeout} while a call does not, the first calls fail while the connection
 * opens, and the next ones work on it: a call that times out does not give up a connection still opening.
 */
public class SlowConnectTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, SilentProxy.class))
            // Database 1: opening a connection selects it, one more round trip.
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()) + "/1")
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "slow-connect")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "250ms");

    @Inject
    DelayedScheduler scheduler;

    private final List<String> failures = new ArrayList<>();

    @Test
    void callsWorkOnceTheConnectionIsOpenThoughOpeningItTookLongerThanTheTimeout() {
        // 150 ms per round trip: opening takes 300 ms, a call 150 ms.
        SilentProxy.delayReplies(150);
        try {
            await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .until(this::scheduled);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("No call worked; the calls failed with: " + failures, e);
        } finally {
            SilentProxy.delayReplies(0);
        }
    }

    private boolean scheduled() {
        long start = System.nanoTime();
        try {
            return scheduler.schedule("slow", "job", "x", Duration.ofHours(1)) != null;
        } catch (DelayedJobsException e) {
            failures.add((System.nanoTime() - start) / 1_000_000 + " ms: " + e.getMessage());
            return false; // timed out while the connection opened
        }
    }
}
