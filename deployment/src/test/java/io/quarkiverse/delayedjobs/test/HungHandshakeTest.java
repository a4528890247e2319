package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A connection whose handshake Redis never answers is given up after five times {@code redis-timeout}, and the next
 * calls open a new one, instead of waiting on it for ever.
 */
public class HungHandshakeTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "hung-handshake")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "250ms");

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aHandshakeNeverAnsweredIsGivenUpAndTheNextConnectionWorks() {
        // The first connection opens now: its handshake's answer is held back for a minute.
        SilentProxy.delayReplies(60_000);
        try {
            DelayedJobsException e = assertThrows(DelayedJobsException.class,
                    () -> scheduler.schedule("hung", "first", "x", Duration.ofHours(1)));
            assertTrue(e.getCause() instanceof TimeoutException, "cause: " + e.getCause());
        } finally {
            SilentProxy.delayReplies(0);
        }

        // Within 1.25 s the connection still opening is given up; the next one answers at once.
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(this::scheduled);
    }

    private boolean scheduled() {
        try {
            return scheduler.schedule("hung", "later", "x", Duration.ofHours(1)) != null;
        } catch (DelayedJobsException e) {
            return false; // still waiting for the connection that is opening
        }
    }
}
