package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A static schedule limited to a year that has passed (here through a config property, which the build does not
 * check) arms nothing, and the application starts: deployed after its year, it has simply ended.
 */
public class EndedStaticScheduleTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Ended.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "ended-static")
            .overrideConfigKey("ended.cron", "0 0 3 ? * * 2020")
            .setLogRecordPredicate(r -> r.getLoggerName().endsWith("DelayedJobsEngine"))
            .assertLogRecords(records -> assertTrue(records.stream().anyMatch(r -> String.valueOf(r.getMessage())
                    .contains("has ended: nothing is armed")), "no log of the ended schedule"));

    static class Ended {
        @Delayed(value = "ended", cron = "${ended.cron}")
        void run() {
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theApplicationStartsAndNothingIsArmed() {
        assertEquals(Optional.empty(), scheduler.find("ended", "ended"));
    }
}
