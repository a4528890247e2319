package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * On a network slow enough that opening a connection and then a call take longer than {@code redis-timeout} together,
 * though a call alone does not, the first call on a new connection fails and the next ones work on it: the connection
 * that opened is not given up because a call that waited for it ran out of time.
 */
public class SlowNetworkTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "slow-network")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "1s");

    @Inject
    DelayedScheduler scheduler;

    @Test
    void callsWorkOnceTheConnectionIsOpenThoughTheFirstCallOnItTimedOut() {
        // 600 ms per round trip: opening (one round trip) and a call take 1.2 s, a call on the open connection 600 ms.
        SilentProxy.delayReplies(600);
        try {
            await().atMost(Duration.ofSeconds(15)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .until(this::scheduled);
        } finally {
            SilentProxy.delayReplies(0);
        }
    }

    private boolean scheduled() {
        try {
            return scheduler.schedule("slow", "job", "x", Duration.ofHours(1)) != null;
        } catch (DelayedJobsException e) {
            return false; // timed out while it waited for the connection
        }
    }
}
