package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.redis.Script;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.pubsub.PubSubCommands.RedisSubscriber;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.redis.client.Response;

/**
 * Concurrent schedule calls of a queue share script calls: at most four calls are under way at once, and the jobs
 * scheduled meanwhile wait and go together, those of several shards in one call on one Redis server. The application
 * has no handler, so that every script call Redis counts is a schedule call.
 */
public class ScheduleBatchingTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "schedule-batching");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Inject
    RedisDataSource redis;

    @Inject
    JobStore store;

    @Test
    void concurrentJobsWaitForTheCallsUnderWayAndGoTogether() throws Exception {
        long before = warmUpAndPauseRedis("batched");
        List<CompletableFuture<ScheduleResult>> results = new ArrayList<>();
        scheduleJobs("batched", results);
        awaitAllCreated(results);
        // The first job went at once; the others waited for the connection's event loop to take them, those of
        // every shard with no call under way in one call (one server holds all the shards), and at most four calls
        // were under way. Then each call that came back took the jobs of its shards that waited meanwhile. How many
        // jobs each call takes depends on this thread's pace against the event loop's, but never more than 4 + 4
        // calls: with a call per shard it would be 8 + 8, with a call per job 64.
        long calls = RedisTestServer.scriptCalls(redis) - before;
        assertTrue(calls >= 2 && calls <= 8, calls + " schedule calls");
        assertAllStored("batched");
    }

    @Test
    void jobsScheduledWhileACallIsUnderWayGoTogetherInTheNextCall() throws Exception {
        long before = warmUpAndPauseRedis("together");
        // Scheduled in one task of the connection's event loop: the queued send runs once the task ends.
        List<CompletableFuture<ScheduleResult>> results = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> issued = new CompletableFuture<>();
        store.connectionContext().runOnContext(v -> {
            scheduleJobs("together", results);
            issued.complete(null);
        });
        issued.get(10, TimeUnit.SECONDS);
        awaitAllCreated(results);
        // job-0 went alone, as nothing was under way; the 63 others went in the next call, but those of job-0's
        // shard, which waited for its call to come back and then went in a third.
        assertEquals(3, RedisTestServer.scriptCalls(redis) - before);
        assertAllStored("together");
    }

    /**
     * Schedules a first job of the queue (the first call of a script may need its text sent after a NOSCRIPT: a
     * second call the count would see), then has Redis hold every command for 2 s, so that the jobs scheduled next
     * are all waiting before a call comes back. Returns the script calls counted so far.
     */
    long warmUpAndPauseRedis(String queue) {
        scheduler.schedule(queue, "warm-up", "p", Duration.ofMinutes(1));
        long before = RedisTestServer.scriptCalls(redis);
        assertEquals("+OK", RedisTestServer.command(RedisTestServer.sharedUrl(), "CLIENT", "PAUSE", "2000", "ALL"));
        return before;
    }

    /** Schedules job-0 … job-63 of the queue, over the 8 shards, 7 to 9 each (crc32 of the ids), without waiting. */
    void scheduleJobs(String queue, List<CompletableFuture<ScheduleResult>> results) {
        for (int i = 0; i < 64; i++) {
            results.add(reactive.schedule(queue, "job-" + i, "p", Duration.ofMinutes(1)).subscribeAsCompletionStage());
        }
    }

    /** Each job was created (none of the ids was stored before). */
    static void awaitAllCreated(List<CompletableFuture<ScheduleResult>> results) throws Exception {
        for (CompletableFuture<ScheduleResult> result : results) {
            assertEquals(ScheduleResult.CREATED, result.get(10, TimeUnit.SECONDS));
        }
    }

    /** Each of job-0 … job-63 is stored (looking them up makes script calls: after counting them). */
    void assertAllStored(String queue) {
        for (int i = 0; i < 64; i++) {
            assertTrue(scheduler.find(queue, "job-" + i).isPresent(), "job-" + i + " is missing");
        }
    }

    /** Stores a job in each of two shards with one schedule call, as the engine sends them to one server. */
    Response scheduleTwoShards(QueueKeys keys, String first, String second, String secondDue, int secondCount)
            throws Exception {
        List<String> callKeys = new ArrayList<>(keys.shard(keys.shardOf(first)));
        callKeys.addAll(keys.shard(keys.shardOf(second)));
        List<Object> args = List.of(keys.wakeChannel(), keys.shardOf(first), 1, first, "p", 60000, "in", "KEEP", "",
                keys.shardOf(second), secondCount, second, "p", secondDue, "in", "KEEP", "");
        return store.run(Script.SCHEDULE, callKeys, args).toCompletionStage().toCompletableFuture().get(10,
                TimeUnit.SECONDS);
    }

    @Test
    void aCallOfSeveralShardsIsCheckedWholeBeforeAnythingIsStored() throws Exception {
        QueueKeys keys = store.queue("parts").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        String first = "part-0";
        String second = IntStream.range(1, 100).mapToObj(i -> "part-" + i)
                .filter(id -> keys.shardOf(id) != keys.shardOf(first)).findFirst().orElseThrow();
        ExecutionException badDue = assertThrows(ExecutionException.class,
                () -> scheduleTwoShards(keys, first, second, "soon", 1));
        assertTrue(badDue.getMessage().contains("due must be a whole number of ms"), badDue.getMessage());
        ExecutionException badCount = assertThrows(ExecutionException.class,
                () -> scheduleTwoShards(keys, first, second, "60000", 2));
        assertTrue(badCount.getMessage().contains("schedule of several shards takes the wake channel"),
                badCount.getMessage());
        assertFalse(scheduler.find("parts", first).isPresent(), "a job of a rejected call was stored");

        Response stored = scheduleTwoShards(keys, first, second, "60000", 1);
        assertEquals("CREATED", stored.get(0).toString());
        assertEquals("CREATED", stored.get(2).toString());
        assertTrue(scheduler.find("parts", first).isPresent());
        assertTrue(scheduler.find("parts", second).isPresent());
    }

    /**
     * A call of several jobs of a shard wakes the workers once, for its earliest job, when that job is now the shard's
     * earliest; not when an earlier one is pending. Among jobs due at the same time the earliest is the one of the
     * lowest score (256 * due + bucket), wherever it is in the call.
     */
    @Test
    void aCallOfSeveralJobsWakesTheWorkersForItsEarliestJobWhenItIsTheShardsEarliest() throws Exception {
        QueueKeys keys = store.queue("wake-parts").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        int shard = keys.shardOf("wake-0");
        List<String> ids = IntStream.range(0, 200).mapToObj(i -> "wake-" + i).filter(id -> keys.shardOf(id) == shard)
                .toList();
        // Two ids of the shard, the second of a lower bucket than the first.
        String higher = ids.stream().filter(id -> QueueKeys.bucketOf(id) > 0).findFirst().orElseThrow();
        String lower = ids.stream().filter(id -> QueueKeys.bucketOf(id) < QueueKeys.bucketOf(higher)).findFirst()
                .orElseThrow();
        List<String> others = ids.stream().filter(id -> !id.equals(higher) && !id.equals(lower)).toList();
        long t = System.currentTimeMillis() + 600_000;
        List<String> messages = new CopyOnWriteArrayList<>();
        RedisSubscriber subscriber = redis.pubsub(String.class).subscribe(keys.wakeChannel(), messages::add);
        try {
            scheduleInShard(keys, shard, List.of(others.get(0), others.get(1)), List.of(t + 5000, t + 3000));
            await().atMost(Duration.ofSeconds(10)).until(() -> messages.size() == 1);
            assertEquals(List.of(shard + ":" + (t + 3000)), messages);

            // Not earlier than the shard's earliest job: no wake-up.
            scheduleInShard(keys, shard, List.of(others.get(2), others.get(3)), List.of(t + 6000, t + 4000));
            // Due at the same time, the job of the lower bucket last: that one is the earliest.
            scheduleInShard(keys, shard, List.of(higher, lower), List.of(t + 2000, t + 2000));
            await().atMost(Duration.ofSeconds(10)).until(() -> messages.size() >= 2);
            // Messages come in order: one for the second call would have come before this one.
            assertEquals(List.of(shard + ":" + (t + 3000), shard + ":" + (t + 2000)), messages);
        } finally {
            subscriber.unsubscribe();
        }
    }

    /** Stores jobs of one shard, due at the given times, with one schedule call. */
    void scheduleInShard(QueueKeys keys, int shard, List<String> ids, List<Long> dues) throws Exception {
        List<Object> args = new ArrayList<>(List.of(keys.wakeChannel(), shard));
        for (int i = 0; i < ids.size(); i++) {
            args.addAll(List.of(ids.get(i), "p", dues.get(i), "at", "KEEP", QueueKeys.bucketOf(ids.get(i))));
        }
        Response stored = store.run(Script.SCHEDULE, keys.shard(shard), args).toCompletionStage().toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        for (int i = 0; i < ids.size(); i++) {
            assertEquals("CREATED", stored.get(2 * i).toString(), ids.get(i));
        }
    }
}
