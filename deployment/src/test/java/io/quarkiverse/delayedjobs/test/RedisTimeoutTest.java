package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A call that Redis leaves unanswered fails after {@code redis-timeout} instead of holding its caller, and the calls
 * after it work again on a new connection once Redis answers. Redis is made to hold every client with
 * {@code CLIENT PAUSE}, as a stalled server or a network cut would.
 */
public class RedisTimeoutTest {

    static final String URL = RedisTestServer.sharedUrl("timeout");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "timeout")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "300ms");

    @Inject
    DelayedScheduler scheduler;

    @Test
    void anUnansweredCallFailsAfterTheTimeoutAndTheNextCallsWorkAgain() {
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("q", "before", "x", Duration.ofHours(1)));

        assertEquals("+OK", RedisTestServer.command(URL, "CLIENT", "PAUSE", "3000", "ALL"));
        DelayedJobsException e = assertThrows(DelayedJobsException.class,
                () -> scheduler.schedule("q", "during", "x", Duration.ofHours(1)));
        assertTrue(e.getCause() instanceof TimeoutException, "cause: " + e.getCause());

        // Once Redis answers again, so do the calls, on a new connection. (A call that timed out may still have been
        // carried out when Redis went on: tried again by id, it finds its job there.)
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .until(() -> scheduler.schedule("q", "after", "x", Duration.ofHours(1)), r -> r != null);
        assertEquals(JobInfo.State.PENDING, scheduler.find("q", "after").orElseThrow().state());
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("q", "later", "x", Duration.ofHours(1)));
    }
}
