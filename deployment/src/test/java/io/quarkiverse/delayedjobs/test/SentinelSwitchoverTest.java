package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A planned Sentinel switchover ({@code SENTINEL FAILOVER}) with a producer scheduling all along. The old master stays
 * up and writable until Sentinel demotes it, seconds after the switch, and its resynchronisation with the new master
 * drops what it took meanwhile: an instance still writing there loses the jobs it scheduled, those not run by then.
 * The engine moves to the new master when Sentinel announces it, so every job scheduled once its calls reach the new
 * master runs. (What the old master takes between the promotion of its replica and that move is lost all the same:
 * Sentinel does not stop the old master's writes.) A connection the new master closes is replaced at once, before and
 * after the old master's demotion.
 */
public class SentinelSwitchoverTest {

    static final RedisTestServer.SentinelSetup REDIS = RedisTestServer.sentinel("switchover");

    @RegisterExtension
    static final QuarkusUnitTest test = SentinelApp.on(REDIS, "switchover");

    @Inject
    DelayedScheduler scheduler;

    @Test
    void everyJobScheduledAfterTheMoveRuns() {
        // Each job whose schedule call succeeded, by the time the call started.
        Map<String, Long> scheduled = new ConcurrentHashMap<>();
        AtomicInteger next = new AtomicInteger();
        ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor();
        producer.scheduleAtFixedRate(() -> {
            String id = "job:" + next.incrementAndGet();
            long started = System.nanoTime();
            try {
                // Due after the old master is demoted, if scheduled there: not claimed from it before.
                scheduler.schedule(SentinelApp.QUEUE, id, "payload", Duration.ofSeconds(2));
                scheduled.put(id, started);
            } catch (RuntimeException e) {
                // A call that failed while the master changed: its caller knows, and it is not counted.
            }
        }, 0, 20, TimeUnit.MILLISECONDS);
        long moved;
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduled.size() >= 20);
            assertEquals("+OK", RedisTestServer.command(REDIS.sentinelUrl(), "SENTINEL", "FAILOVER", "mymaster"));
            String newAddress = "address=" + REDIS.replicaUrl().substring("redis://".length());
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> RedisTestServer.command(REDIS.sentinelUrl(), "INFO", "sentinel").contains(newAddress));
            long announced = System.nanoTime();
            // The engine heard it once its calls reach the new master: its calls share one connection. It follows the
            // announcement, not the old master's demotion, which comes some 10 s after the switch.
            await().atMost(Duration.ofSeconds(5)).until(
                    () -> RedisTestServer.command(REDIS.replicaUrl(), "CLIENT", "LIST").contains("cmd=evalsha"));
            moved = System.nanoTime();
            // The new master closes the connection that followed the switch, before Sentinel demoted the old master:
            // the first call that finds it closed replaces it. Before, its end went unnoticed (the client had swapped
            // the socket under the connection, whose end handlers stayed with the old one) and every call failed until
            // the old master's demotion closed that one too, some 10 s later.
            RedisTestServer.command(REDIS.replicaUrl(), "CLIENT", "KILL", "TYPE", "normal");
            long killed = System.nanoTime();
            await().atMost(Duration.ofSeconds(3))
                    .until(() -> scheduled.values().stream().anyMatch(started -> started - killed > 0));
            assertTrue(RedisTestServer.isMaster(REDIS.masterUrl()), "the old master was demoted already: nothing tested");
            // The old master is demoted and resynchronised from the new one: what it took after the switch is gone.
            RedisTestServer.awaitReplicating(REDIS.masterUrl(), Duration.ofSeconds(60));
            int atDemotion = scheduled.size();
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduled.size() >= atDemotion + 20);
        } finally {
            producer.shutdownNow();
        }
        Set<String> after = new TreeSet<>();
        scheduled.forEach((id, started) -> {
            if (started - moved >= 0) {
                after.add(id);
            }
        });
        assertTrue(after.size() >= 40, "jobs scheduled after the move: " + after.size());
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Set<String> missing = new TreeSet<>(after);
            missing.removeAll(SentinelApp.Recorder.ran);
            assertEquals(Set.of(), missing, "scheduled after the move, never run");
        });

        // The connection that followed the switch is replaced in turn when the new master closes it.
        RedisTestServer.command(REDIS.replicaUrl(), "CLIENT", "KILL", "TYPE", "normal");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            String id = "after-kill:" + next.incrementAndGet();
            try {
                scheduler.schedule(SentinelApp.QUEUE, id, "payload", Duration.ZERO);
            } catch (RuntimeException e) {
                throw new AssertionError("schedule failed", e);
            }
        });
    }
}
