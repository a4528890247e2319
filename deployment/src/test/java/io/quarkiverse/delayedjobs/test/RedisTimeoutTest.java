package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Objects;
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
 * after it go out on a new connection. The connection goes silent without closing (a network path that drops
 * everything, see {@link SilentProxy}): only a new one can work again.
 */
public class RedisTimeoutTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "timeout")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "300ms");

    @Inject
    DelayedScheduler scheduler;

    @Test
    void anUnansweredCallFailsAfterTheTimeoutAndTheNextCallsGoOnANewConnection() {
        // Opening a connection takes several round trips, which a busy machine may not finish within the timeout:
        // the first call, and the first on the new connection, are tried again until answered.
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduled("before"), Objects::nonNull);

        SilentProxy.silenceAll();
        DelayedJobsException e = assertThrows(DelayedJobsException.class,
                () -> scheduler.schedule("q", "during", "x", Duration.ofHours(1)));
        assertTrue(e.getCause() instanceof TimeoutException, "cause: " + e.getCause());

        // The call that timed out reached Redis and was carried out; its answer was lost. Tried again by id, it finds
        // its job there.
        assertEquals(ScheduleResult.KEPT,
                await().atMost(Duration.ofSeconds(10)).until(() -> scheduled("during"), Objects::nonNull));
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("q", "after", "x", Duration.ofHours(1)));
        assertEquals(JobInfo.State.PENDING, scheduler.find("q", "after").orElseThrow().state());
    }

    /** The call's result, or null when it timed out. */
    private ScheduleResult scheduled(String id) {
        try {
            return scheduler.schedule("q", id, "x", Duration.ofHours(1));
        } catch (DelayedJobsException e) {
            if (!(e.getCause() instanceof TimeoutException)) {
                throw e;
            }
            return null;
        }
    }
}
