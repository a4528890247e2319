package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;

import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A setting of the workers out of its range ({@code catch-up-limit}) stops the application before anything is written
 * to Redis, even when the application's own startup code schedules a job before the workers start: the check comes
 * with the first use of the scheduler.
 */
public class EarlyScheduleBadSettingTest {

    private static final String PREFIX = "early-bad-setting";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Early.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", PREFIX)
            .overrideConfigKey("quarkus.delayed-jobs.catch-up-limit", "0")
            .assertException(e -> {
                StartupRefusal.refusedWith("quarkus.delayed-jobs.catch-up-limit must be 1 to 1000, was 0").accept(e);
                assertEquals("*0", RedisTestServer.command(RedisTestServer.sharedUrl(), "KEYS", PREFIX + ":*"),
                        "keys written before the refusal");
            });

    static class Early {
        void onStart(@Observes @Priority(1) StartupEvent event, DelayedScheduler scheduler) {
            scheduler.schedule("early", "early-1", "x", Duration.ofHours(1));
        }

        @Delayed("early")
        void run(String payload) {
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
