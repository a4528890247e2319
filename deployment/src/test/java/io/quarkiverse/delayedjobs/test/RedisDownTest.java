package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

/**
 * When Redis cannot be reached, operations fail with a DelayedJobsException that carries the cause.
 */
public class RedisDownTest {

    static final String URL = RedisTestServer.sharedUrl("down");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.redis.max-pool-waiting", "1")
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "down");

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aRedisFailureSurfacesAsDelayedJobsExceptionWithItsCause() {
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("q", "before", "x", Duration.ofHours(1)));
        RedisTestServer.shutdown(URL);
        DelayedJobsException e = assertThrows(DelayedJobsException.class,
                () -> scheduler.schedule("q", "after", "x", Duration.ofHours(1)));
        // The lost connection makes the call check the queue's shard count again first: that fails, or the script.
        assertTrue(e.getMessage()
                .startsWith("Redis failed to record the shard count of queue 'q' (the first call to a queue does, and"
                        + " again after Redis came back): ")
                || e.getMessage().startsWith("Redis failed to run schedule.lua: "), e.getMessage());
        assertNotNull(e.getCause());
    }
}
