package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.MisfirePolicy;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Recurring jobs on a real Redis Cluster of three nodes: a static schedule and run-time ones on every shard (so on
 * every node, each loading the scripts on its first NOSCRIPT) are created, kept when registered again, run once per
 * occurrence and cancelled.
 */
public class ClusterRecurringTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.clusterUrls())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "cluster-cron");

    static final Map<String, List<Instant>> runs = new ConcurrentHashMap<>();

    static class Handlers {
        @Delayed(value = "cluster-tick", cron = "* * * * * ?", misfire = MisfirePolicy.CATCH_UP)
        void tick(JobContext context) {
            runs.computeIfAbsent(context.id(), id -> new CopyOnWriteArrayList<>()).add(context.dueAt());
        }

        @Delayed("cluster-reports")
        void report(String payload, JobContext context) {
            runs.computeIfAbsent(context.id(), id -> new CopyOnWriteArrayList<>()).add(context.dueAt());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void recurringJobsRunOncePerOccurrenceOnEveryShard() {
        Set<Integer> shards = new HashSet<>();
        for (int i = 0; i < 16; i++) {
            String id = "r-" + i;
            shards.add(QueueKeys.shardOf(id, 8));
            assertEquals(ScheduleResult.CREATED,
                    scheduler.recurring("cluster-reports", id, "* * * * * ?", ZoneOffset.UTC, "p" + i));
            assertEquals(ScheduleResult.KEPT,
                    scheduler.recurring("cluster-reports", id, "* * * * * ?", ZoneOffset.UTC, "p" + i));
        }
        assertEquals(8, shards.size());
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            for (int i = 0; i < 16; i++) {
                if (runs.getOrDefault("r-" + i, List.of()).size() < 3) {
                    return false;
                }
            }
            return runs.getOrDefault("cluster-tick", List.of()).size() >= 3;
        });
        for (int i = 0; i < 16; i++) {
            assertTrue(scheduler.cancel("cluster-reports", "r-" + i));
        }
        // No occurrence runs twice; the CATCH_UP schedule runs every one of them. (A FIRE_ONCE job that a busy machine
        // starts more than a second late skips the occurrences it missed.)
        for (Map.Entry<String, List<Instant>> e : runs.entrySet()) {
            List<Instant> due = e.getValue();
            for (int i = 1; i < due.size(); i++) {
                Duration gap = Duration.between(due.get(i - 1), due.get(i));
                if (e.getKey().equals("cluster-tick")) {
                    assertEquals(Duration.ofSeconds(1), gap, e.getKey() + due);
                } else {
                    assertTrue(gap.compareTo(Duration.ofSeconds(1)) >= 0, e.getKey() + due);
                }
            }
        }
        assertEquals("* * * * * ?", scheduler.find("cluster-tick", "cluster-tick").orElseThrow().cron());
    }
}
