package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Dead letters are bounded by count per queue (each shard keeps its share) and by age.
 */
public class DeadLetterBoundsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Doomed.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "dead-bounds")
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "200ms")
            .overrideConfigKey("quarkus.delayed-jobs.dead-letter.max-size", "4")
            .overrideConfigKey("quarkus.delayed-jobs.dead-letter.retention", "4s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.doomed.shards", "2")
            .overrideConfigKey("quarkus.delayed-jobs.queues.doomed.max-attempts", "1");

    static class Doomed {
        static final AtomicInteger runs = new AtomicInteger();

        @Delayed("doomed")
        void run() {
            runs.incrementAndGet();
            throw new IllegalStateException("doomed");
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void eachShardKeepsItsShareAndOldDeadLettersGo() {
        int[] perShard = new int[2];
        for (int i = 0; i < 10; i++) {
            String id = "job-" + i;
            perShard[QueueKeys.shardOf(id, 2)]++;
            scheduler.schedule("doomed", id, null, Duration.ZERO);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> Doomed.runs.get() == 10
                && scheduler.stats("doomed").running() == 0);
        QueueStats stats = scheduler.stats("doomed");
        assertEquals(0, stats.pending());
        // max-size 4 over 2 shards: each shard keeps its 2 newest dead letters.
        assertEquals(Math.min(2, perShard[0]) + Math.min(2, perShard[1]), stats.dead());

        await().atMost(Duration.ofSeconds(15)).until(() -> scheduler.stats("doomed").dead() == 0);
    }
}
