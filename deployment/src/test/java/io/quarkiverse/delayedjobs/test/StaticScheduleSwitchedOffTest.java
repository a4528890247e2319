package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A static schedule whose expression comes from the configuration and reads {@code off} (or {@code disabled}, in any
 * case) never fires, as with {@code @Scheduled}: the instance arms nothing, leaves its time zone unread, and removes a
 * job of the schedule that an earlier deployment left in Redis, which would otherwise go on firing.
 */
public class StaticScheduleSwitchedOffTest {

    static final String URL = RedisTestServer.sharedUrl("switched-off");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Ticker.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "switched-off")
            .overrideConfigKey("tick.cron", " Off ")
            .setLogRecordPredicate(r -> r.getLoggerName().endsWith("DelayedJobsEngine"))
            .assertLogRecords(records -> assertTrue(records.stream().anyMatch(r -> String.valueOf(r.getMessage())
                    .contains("is switched off (cron = \"%s\", which reads \"%s\"): its job")), "no log of the removal"));

    static class Ticker {
        static final AtomicInteger ticks = new AtomicInteger();

        // tick.zone is not set: a switched-off schedule does not need it.
        @Delayed(value = "ticker", cron = "${tick.cron:* * * * * ?}", timeZone = "${tick.zone}")
        void tick() {
            ticks.incrementAndGet();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void armsNothingAndRemovesTheJobAnEarlierDeploymentLeft() {
        assertEquals(Optional.empty(), scheduler.find("ticker", "ticker"));

        // The job of the schedule as a deployment with it switched on stored it: the workers re-arm it from Redis.
        assertEquals(ScheduleResult.CREATED,
                scheduler.recurring("ticker", "ticker", "* * * * * ?", ZoneOffset.UTC, null));
        await().atMost(Duration.ofSeconds(10)).until(() -> Ticker.ticks.get() >= 2);

        // The instance applies its static schedules again when its wake subscription opens again.
        RedisTestServer.command(URL, "CLIENT", "KILL", "TYPE", "pubsub");
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("ticker", "ticker").isEmpty());
    }
}
