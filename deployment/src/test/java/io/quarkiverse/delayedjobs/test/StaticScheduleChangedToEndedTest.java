package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.MisfirePolicy;
import io.quarkiverse.delayedjobs.runtime.cron.CronSchedule;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.redis.Script;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A static schedule whose definition changed, between deployments, to one that has ended (a year that has passed,
 * here from a config property): the job of the old definition is replaced as for any change, so nothing is armed and
 * the old schedule no longer fires.
 */
public class StaticScheduleChangedToEndedTest {

    private static final String QUEUE = "campaign";
    private static final String PREFIX = "changed-to-ended";

    static {
        // The previous deployment's definition, every second, armed now: registered as an instance of it would. Once:
        // the class is loaded again, by the application's class loader, once the application started.
        if (System.getProperty(PREFIX) == null) {
            System.setProperty(PREFIX, "armed");
            armPreviousDefinition();
        }
    }

    static void armPreviousDefinition() {
        arm(QUEUE, "FIRE_ONCE|Z|* * * * * ?", System.currentTimeMillis());
    }

    /** Registers the recurring job {@code id} of the queue, payload JSON null, as recurring.lua does. */
    static void arm(String id, String schedule, long firstMs) {
        QueueKeys keys = new QueueKeys(PREFIX, QUEUE, 8);
        int shard = keys.shardOf(id);
        List<String> command = new ArrayList<>(List.of("EVAL", Script.RECURRING.text(), "9"));
        command.addAll(keys.shard(shard));
        command.addAll(List.of(id, "null", schedule, String.valueOf(firstMs), keys.wakeChannel(), String.valueOf(shard)));
        RedisTestServer.command(RedisTestServer.sharedUrl(), command.toArray(String[]::new));
    }

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Campaign.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", PREFIX)
            .overrideConfigKey("campaign.cron", "0 0 3 ? * * 2020")
            .setLogRecordPredicate(r -> r.getLoggerName().endsWith("DelayedJobsEngine"))
            .assertLogRecords(records -> assertTrue(records.stream().anyMatch(r -> String.valueOf(r.getMessage())
                    .contains("has ended: nothing is armed")), "no log of the ended schedule"));

    static class Campaign {
        static final AtomicInteger runs = new AtomicInteger();

        @Delayed(value = QUEUE, cron = "${campaign.cron}")
        void run() {
            runs.incrementAndGet();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Test
    void theOldDefinitionIsReplacedAndNothingIsArmed() {
        // The registration ends before any worker starts: the old definition never ran in this deployment.
        assertEquals(Optional.empty(), scheduler.find(QUEUE, QUEUE));
        assertEquals(0, Campaign.runs.get());
    }

    @Test
    void aJobOfTheSameEndedScheduleIsKept() throws Exception {
        String ended = "0 0 3 ? * * 2020";
        // Its last occurrence still to run (armed far ahead here, so that no worker takes it meanwhile).
        arm("kept", "FIRE_ONCE|Z|" + ended, 4_000_000_000_000L);
        CronSchedule schedule = CronSchedule.ofAnyTime(ended, null, MisfirePolicy.FIRE_ONCE);
        assertTrue(store.endedRecurring(QUEUE, "kept", "null", schedule).toCompletionStage().toCompletableFuture()
                .get(10, TimeUnit.SECONDS));
        assertEquals(ended, scheduler.find(QUEUE, "kept").orElseThrow().cron());
        // Another payload is another definition.
        assertFalse(store.endedRecurring(QUEUE, "kept", "{}", schedule).toCompletionStage().toCompletableFuture()
                .get(10, TimeUnit.SECONDS));
        assertEquals(Optional.empty(), scheduler.find(QUEUE, "kept"));
    }
}
