package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A planned Sentinel switchover with the master's {@code min-replicas-to-write 1}. Without it, the old master takes
 * the schedules sent between its replica's promotion and the engine's move to the new master, and drops them when
 * Sentinel demotes it ({@link SentinelSwitchoverTest}). With it, the old master refuses writes once the promoted
 * replica leaves it, so those calls fail (their callers know), and every schedule that succeeded runs but one that
 * raced the promotion.
 */
public class SentinelMinReplicasTest {

    private static final Logger LOG = Logger.getLogger(SentinelMinReplicasTest.class);

    static final RedisTestServer.SentinelSetup REDIS = RedisTestServer.sentinel("min-replicas");

    @RegisterExtension
    static final QuarkusUnitTest test = SentinelApp.on(REDIS, "min-replicas");

    @Inject
    DelayedScheduler scheduler;

    @Test
    void everySucceededScheduleRunsAcrossTheSwitchover() {
        // Only on the old master: the new one has no replica until the old one is demoted and follows it.
        assertEquals("+OK", RedisTestServer.command(REDIS.masterUrl(), "CONFIG", "SET", "min-replicas-to-write", "1"));
        Set<String> scheduled = ConcurrentHashMap.newKeySet();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger firstRefused = new AtomicInteger();
        ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor();
        producer.scheduleAtFixedRate(() -> {
            String id = "job:" + next.incrementAndGet();
            try {
                // Due after the old master is demoted, if it was kept there: not claimed from it before.
                scheduler.schedule(SentinelApp.QUEUE, id, "payload", Duration.ofSeconds(2));
                scheduled.add(id);
            } catch (RuntimeException e) {
                // Its caller knows it is not stored: Redis answered NOREPLICAS.
                firstRefused.compareAndSet(0, Integer.parseInt(id.substring("job:".length())));
                refused.incrementAndGet();
            }
        }, 0, 5, TimeUnit.MILLISECONDS);
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduled.size() >= 50);
            assertEquals("+OK", RedisTestServer.command(REDIS.sentinelUrl(), "SENTINEL", "FAILOVER", "mymaster"));
            // The old master is demoted and resynchronised from the new one: what it took after the switch is gone.
            RedisTestServer.awaitReplicating(REDIS.masterUrl(), Duration.ofSeconds(60));
            int atDemotion = scheduled.size();
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduled.size() >= atDemotion + 50);
        } finally {
            producer.shutdownNow();
        }
        LOG.infof("%d schedules succeeded, %d refused across the switchover", scheduled.size(), refused.get());
        assertTrue(scheduled.size() >= 150, "schedules that succeeded: " + scheduled.size());
        assertTrue(refused.get() > 0, "the old master refused no write");
        // Lost: only a write the old master took just before its replica left, which the promoted replica never got
        // (replication is asynchronous). Without the setting, every write between the promotion and the move is lost.
        Set<String> racing = new TreeSet<>();
        for (int n = firstRefused.get() - 3; n < firstRefused.get(); n++) {
            racing.add("job:" + n);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Set<String> missing = new TreeSet<>(scheduled);
            missing.removeAll(SentinelApp.Recorder.ran);
            missing.removeAll(racing);
            assertEquals(Set.of(), missing, "scheduled, never run (the old master's first refusal: job:"
                    + firstRefused.get() + ")");
        });
    }
}
