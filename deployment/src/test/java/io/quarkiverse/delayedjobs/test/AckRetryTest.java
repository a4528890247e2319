package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * An acknowledgement that Redis refuses is sent again, so that a job that succeeded is removed rather than run a
 * second time once its lease runs out. Redis refuses the scripts while the ACL denies them to the client's user.
 */
public class AckRetryTest {

    static final String URL = RedisTestServer.sharedUrl("ack-retry");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Slow.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "ack-retry");

    static class Slow {
        static final AtomicInteger runs = new AtomicInteger();
        static final CountDownLatch started = new CountDownLatch(1);
        static final CountDownLatch release = new CountDownLatch(1);

        @Delayed("slow")
        void run() throws InterruptedException {
            runs.incrementAndGet();
            started.countDown();
            assertTrue(release.await(10, TimeUnit.SECONDS));
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aRefusedAckIsSentAgainAndTheJobRunsOnce() throws Exception {
        scheduler.schedule("slow", "once", "p", Duration.ZERO);
        assertTrue(Slow.started.await(10, TimeUnit.SECONDS));
        long refusedBefore = RedisTestServer.rejectedCalls(URL, "eval|evalsha");
        try {
            assertEquals("+OK", RedisTestServer.command(URL, "ACL", "SETUSER", "default", "-eval", "-evalsha"));
            Slow.release.countDown();
            // The handler returned and its ack was refused.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> RedisTestServer.rejectedCalls(URL, "eval|evalsha") > refusedBefore);
        } finally {
            assertEquals("+OK", RedisTestServer.command(URL, "ACL", "SETUSER", "default", "+eval", "+evalsha"));
        }
        // The lease is 30 s: only an ack sent again removes the job within 10.
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("slow", "once").isEmpty());
        assertEquals(1, Slow.runs.get());
    }
}
