package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.redis.Script;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A static schedule that replaces another definition of its job says so at INFO: a rollout that changed it, or two
 * applications with the same key prefix and queue and other schedules, which replace each other's at each start (a
 * security trial saw one application's ticks stop without a line above DEBUG).
 */
public class StaticScheduleReplacedLogTest {

    private static final String QUEUE = "nightly";
    private static final String PREFIX = "static-replaced-log";

    static {
        // Another definition, armed as an instance of it would. Once: the class is loaded again by the application.
        if (System.getProperty(PREFIX) == null) {
            System.setProperty(PREFIX, "armed");
            QueueKeys keys = new QueueKeys(PREFIX, QUEUE, 8);
            int shard = keys.shardOf(QUEUE);
            List<String> command = new ArrayList<>(List.of("EVAL", Script.RECURRING.text(), "9"));
            command.addAll(keys.shard(shard));
            command.addAll(List.of(QUEUE, "null", "FIRE_ONCE|Z|0 0 4 * * ?", "4000000000000", keys.wakeChannel(),
                    String.valueOf(shard)));
            RedisTestServer.command(RedisTestServer.sharedUrl(), command.toArray(String[]::new));
        }
    }

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Nightly.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", PREFIX)
            .setLogRecordPredicate(r -> r.getLoggerName().endsWith("DelayedJobsEngine")
                    && r.getLevel().intValue() == Level.INFO.intValue())
            .assertLogRecords(records -> assertTrue(records.stream().anyMatch(r -> r.getMessage() != null
                    && String.format(r.getMessage(), r.getParameters()).equals("The recurring schedule '0 0 3 * * ?' of "
                            + Nightly.class.getName()
                            + "#run() replaced what was stored for its job nightly (another definition after a new deployment,"
                            + " or a dead letter; if this repeats at each start, another application with the same key"
                            + " prefix and queue and another schedule)")),
                    "no INFO of the replaced schedule"));

    static class Nightly {
        @Delayed(value = QUEUE, cron = "0 0 3 * * ?")
        void run() {
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theNewDefinitionIsArmed() {
        assertEquals("0 0 3 * * ?", scheduler.find(QUEUE, QUEUE).orElseThrow().cron());
    }
}
