package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * One shard whose key has the wrong type (written by something else than this extension) does not stop the other
 * shards of its queue on a single Redis server, where the shards of a claim round, and the jobs of several shards
 * scheduled at once, share one script call: once a call failed, each call carries one shard, and only the bad shard's
 * claims and schedules keep failing.
 */
public class BadShardTest {

    private static final String PREFIX = "bad-shard";
    private static final int SHARDS = 4;
    private static final int BAD_SHARD = 2;
    private static final int JOBS = 200;

    /** Written before the application starts, so that its first claim round already meets the bad key. */
    private static final String URL = withBadShard();

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Shaky.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", PREFIX)
            .overrideConfigKey("quarkus.delayed-jobs.queues.shaky.shards", String.valueOf(SHARDS));

    static class Shaky {
        static final Set<String> ran = ConcurrentHashMap.newKeySet();

        @Delayed("shaky")
        void run(String payload) {
            ran.add(payload);
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    private static String withBadShard() {
        String url = RedisTestServer.sharedUrl();
        String due = new QueueKeys(PREFIX, "shaky", SHARDS).shard(BAD_SHARD).get(0);
        assertEquals("+OK", RedisTestServer.command(url, "SET", due, "not a sorted set"));
        return url;
    }

    @Test
    void theOtherShardsRunTheirJobs() {
        QueueKeys keys = new QueueKeys(PREFIX, "shaky", SHARDS);
        // Jobs of the good shards due one after another over three seconds: their claims meet the bad shard's, which
        // is tried again every second. A claim call over several shards that failed would lose its answer, and the
        // jobs it took would wait out their 30 s lease.
        Instant start = Instant.now().plusMillis(500);
        int scheduled = 0;
        for (int i = 0; scheduled < JOBS; i++) {
            String id = "job-" + i;
            if (keys.shardOf(id) != BAD_SHARD) {
                scheduler.schedule("shaky", id, id, start.plusMillis(15L * scheduled));
                scheduled++;
            }
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> Shaky.ran.size() == JOBS);
    }

    @Test
    void schedulesToTheOtherShardsSucceed() {
        // A first burst: its calls may carry the bad shard with others, if no call of the queue failed before.
        burst("first").forEach(f -> f.handle((result, failure) -> null).join());
        // The jobs of a burst, scheduled all at once, share calls: the good shards' jobs must not share the bad one's.
        List<CompletableFuture<ScheduleResult>> second = burst("second");
        QueueKeys keys = new QueueKeys(PREFIX, "shaky", SHARDS);
        for (int i = 0; i < second.size(); i++) {
            CompletableFuture<ScheduleResult> result = second.get(i);
            if (keys.shardOf("second-" + i) == BAD_SHARD) {
                CompletionException failed = assertThrows(CompletionException.class, result::join);
                assertInstanceOf(DelayedJobsException.class, failed.getCause());
            } else {
                assertEquals(ScheduleResult.CREATED, result.join(), "second-" + i);
            }
        }
    }

    /** Schedules jobs {@code <name>-0} to {@code <name>-99}, an hour from now, all at once. */
    private List<CompletableFuture<ScheduleResult>> burst(String name) {
        List<CompletableFuture<ScheduleResult>> results = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            results.add(reactive.schedule("shaky", name + "-" + i, "x", Duration.ofHours(1))
                    .subscribeAsCompletionStage());
        }
        return results;
    }
}
