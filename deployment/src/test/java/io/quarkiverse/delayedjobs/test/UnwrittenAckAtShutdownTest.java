package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A stop while Redis refuses every write: the handler finished, but its ack cannot be written. The stop waits for it up
 * to {@code shutdown-timeout}, then says so (not that a handler is still running), and sends it no more: in dev mode
 * the Vert.x instance outlives the application, and the ack of a stopped engine was sent again every second for ever
 * (on its closed connection once the application had stopped).
 */
public class UnwrittenAckAtShutdownTest {

    static final String URL = RedisTestServer.sharedUrl("unwritten-ack");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Quick.class, RedisTestServer.class, LoggedMessages.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "unwritten-ack")
            .overrideConfigKey("quarkus.delayed-jobs.shutdown-timeout", "2s");

    static class Quick {
        static final CountDownLatch started = new CountDownLatch(1);
        static final CountDownLatch release = new CountDownLatch(1);

        @Delayed("quick")
        void run() throws InterruptedException {
            started.countDown();
            assertTrue(release.await(10, TimeUnit.SECONDS));
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    DelayedJobsEngine engine;

    @Test
    void theStopSaysTheAckWasNotWrittenAndSendsItNoMore() throws Exception {
        LoggedMessages warnings = LoggedMessages.of("io.quarkiverse.delayedjobs", Level.WARNING);
        scheduler.schedule("quick", "job", null, Duration.ZERO);
        assertTrue(Quick.started.await(10, TimeUnit.SECONDS));
        long refusedBefore = RedisTestServer.rejectedCalls(URL, "eval|evalsha");
        try {
            assertEquals("+OK", RedisTestServer.command(URL, "ACL", "SETUSER", "default", "-eval", "-evalsha"));
            Quick.release.countDown();
            // The handler returned and its ack was refused.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> RedisTestServer.rejectedCalls(URL, "eval|evalsha") > refusedBefore);
            engine.stop();
            long refusedAtStop = RedisTestServer.rejectedCalls(URL, "eval|evalsha");
            // Nothing is sent any more once the stop returned.
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4))
                    .until(() -> RedisTestServer.rejectedCalls(URL, "eval|evalsha") == refusedAtStop);
        } finally {
            assertEquals("+OK", RedisTestServer.command(URL, "ACL", "SETUSER", "default", "+eval", "+evalsha"));
            warnings.close();
        }
        assertTrue(warnings.messages().stream().noneMatch(w -> w.contains("still running")), warnings.messages().toString());
        assertTrue(warnings.messages().stream().anyMatch(w -> w.contains("1 finished job") && w.contains("not acknowledged")),
                warnings.messages().toString());
    }
}
