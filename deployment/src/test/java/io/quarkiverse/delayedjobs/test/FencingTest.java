package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.VertxFutures.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Ack;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.RetryOutcome;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.Request;

/**
 * The claim protocol seen from two workers: a claim carries a fencing token, and ack, retry and renew succeed only
 * with the current one; one lease covers the jobs of a claim. Plays the workers directly on the job store, on a queue
 * nobody else works on.
 */
public class FencingTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, VertxFutures.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "fencing");

    static final Duration WAIT = Duration.ofSeconds(10);

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Inject
    Redis redis;

    QueueKeys keys(String queue) throws Exception {
        return store.queue(queue).toCompletionStage().toCompletableFuture().get();
    }

    static QueueSettings withLease(Duration lease) {
        return new QueueSettings(8, lease, 32, 16, Duration.ZERO, Duration.ZERO, 10, Duration.ofSeconds(1),
                Duration.ofHours(1));
    }

    List<Claimed> claim(QueueKeys keys, String id, Duration lease) throws Exception {
        return store.claim(keys, keys.shardOf(id), 10, 0, 0, withLease(lease), List.of()).toCompletionStage()
                .toCompletableFuture()
                .get().jobs();
    }

    @Test
    void aStaleWorkerCannotAckRetryOrRenewAfterTheJobWasClaimedAgain() throws Exception {
        QueueKeys keys = keys("fenced");
        scheduler.schedule("fenced", "job", "p", Duration.ZERO);
        List<Claimed> first = claim(keys, "job", Duration.ofSeconds(1));
        assertEquals(1, first.size());
        Claimed stale = first.get(0);
        assertEquals(1, stale.attempt());
        assertEquals(JobInfo.State.RUNNING, scheduler.find("fenced", "job").orElseThrow().state());

        // The first worker "dies": once its lease ran out, the job is claimed again with a new token.
        Claimed current = await().atMost(WAIT).until(() -> claim(keys, "job", Duration.ofSeconds(30)),
                jobs -> !jobs.isEmpty()).get(0);
        assertEquals(2, current.attempt());
        assertNotEquals(stale.token(), current.token());

        int shard = keys.shardOf("job");
        assertEquals(0, get(store.ack(keys, shard, List.of(new Ack("job", stale.token(), null)))));
        assertEquals(RetryOutcome.STALE, get(store.retry(keys, shard, "job", stale.token(), 0, "late", false, null,
                withLease(Duration.ofSeconds(30)))));
        assertEquals(List.of(stale.token()), get(store.renew(keys, shard,
                List.<String[]> of(new String[] { "job", stale.token() }), Duration.ofSeconds(30))));
        assertEquals(JobInfo.State.RUNNING, scheduler.find("fenced", "job").orElseThrow().state());

        assertEquals(List.of(), get(store.renew(keys, shard,
                List.<String[]> of(new String[] { "job", current.token() }), Duration.ofSeconds(30))));
        assertEquals(1, get(store.ack(keys, shard, List.of(new Ack("job", current.token(), null)))));
        assertTrue(scheduler.find("fenced", "job").isEmpty());
    }

    @Test
    void aClaimHoldsOneLeaseUntilItsLastJobEndedAndGivesBackOnlyItsRunningJobsWhenItRunsOut() throws Exception {
        QueueKeys keys = keys("together");
        int shard = keys.shardOf("job-0");
        List<String> ids = new ArrayList<>();
        for (int i = 0; ids.size() < 5; i++) {
            if (keys.shardOf("job-" + i) == shard) {
                ids.add("job-" + i);
            }
        }
        for (String id : ids) {
            scheduler.schedule("together", id, "p", Duration.ZERO);
        }
        List<Claimed> first = claim(keys, ids.get(0), Duration.ofSeconds(1));
        assertEquals(ids, first.stream().map(Claimed::id).sorted().toList());
        assertEquals(1, first.stream().map(c -> c.token().substring(0, c.token().indexOf('.'))).distinct().count());
        assertEquals(1, redisCount(Command.ZCARD, keys.shard(shard).get(1)), "one lease for the whole claim");

        // Three of its jobs end in three ways; the claim's worker then dies with the other two.
        assertEquals(1, get(store.ack(keys, shard, List.of(new Ack(first.get(0).id(), first.get(0).token(), null)))));
        assertTrue(scheduler.cancel("together", first.get(1).id()));
        assertEquals(RetryOutcome.RETRIED, get(store.retry(keys, shard, first.get(2).id(), first.get(2).token(),
                Duration.ofHours(1).toMillis(), "boom", false, null, withLease(Duration.ofSeconds(30)))));

        // Once the lease ran out, only the two still running are claimed again, one per call here.
        QueueSettings oneAtATime = withLease(Duration.ofSeconds(30));
        List<Claimed> again = new ArrayList<>(await().atMost(WAIT)
                .until(() -> get(store.claim(keys, shard, 1, 0, 0, oneAtATime, List.of())).jobs(), jobs -> !jobs.isEmpty()));
        assertEquals(1, again.size());
        again.addAll(get(store.claim(keys, shard, 1, 0, 0, oneAtATime, List.of())).jobs());
        assertEquals(2, again.size(), "the job the first call could not take is left for the next");
        assertEquals(List.of(), get(store.claim(keys, shard, 1, 0, 0, oneAtATime, List.of())).jobs());
        assertEquals(Set.of(first.get(3).id(), first.get(4).id()),
                again.stream().map(Claimed::id).collect(Collectors.toSet()));
        assertTrue(again.stream().allMatch(c -> c.attempt() == 2));

        // When the last job of a claim ended, nothing of the claim is left.
        assertEquals(2, get(store.ack(keys, shard,
                again.stream().map(c -> new Ack(c.id(), c.token(), null)).toList())));
        assertEquals(0, scheduler.stats("together").running());
        assertEquals(0, redisCount(Command.ZCARD, keys.shard(shard).get(1)), "leases left");
        assertEquals(0, redisCount(Command.HLEN, keys.shard(shard).get(8)), "claim records left");
    }

    long redisCount(Command command, String key) throws Exception {
        return get(redis.send(Request.cmd(command).arg(key))).toLong();
    }

    @Test
    void aClaimCarriesTheAcksOfItsShardAndHonoursTheirTokens() throws Exception {
        QueueKeys keys = keys("carried");
        scheduler.schedule("carried", "done", "p", Duration.ZERO);
        Claimed done = claim(keys, "done", Duration.ofSeconds(30)).get(0);
        int shard = keys.shardOf("done");
        String stale = "0.0";
        get(store.claim(keys, shard, 10, 0, 0, withLease(Duration.ofSeconds(30)),
                List.of(new Ack("done", stale, null))));
        assertEquals(JobInfo.State.RUNNING, scheduler.find("carried", "done").orElseThrow().state());
        get(store.claim(keys, shard, 10, 0, 0, withLease(Duration.ofSeconds(30)),
                List.of(new Ack("done", done.token(), null))));
        assertTrue(scheduler.find("carried", "done").isEmpty());
        assertEquals(0, scheduler.stats("carried").running());
    }

    @Test
    void aJobReplacedWhileRunningKeepsTheNewVersion() throws Exception {
        QueueKeys keys = keys("replaced");
        scheduler.schedule("replaced", "job", "old", Duration.ZERO);
        Claimed running = claim(keys, "job", Duration.ofSeconds(30)).get(0);

        scheduler.schedule("replaced", "job", "new", Duration.ofDays(1), OnConflict.REPLACE);
        int shard = keys.shardOf("job");
        assertEquals(0, get(store.ack(keys, shard, List.of(new Ack("job", running.token(), null)))));
        assertEquals(RetryOutcome.STALE, get(store.retry(keys, shard, "job", running.token(), 0, "boom", true, null,
                withLease(Duration.ofSeconds(30)))));
        JobInfo info = scheduler.find("replaced", "job").orElseThrow();
        assertEquals(JobInfo.State.PENDING, info.state());
        assertEquals("\"new\"", info.payload());
        assertEquals(0, info.attempts());
        assertEquals(null, info.lastError());
    }

    @Test
    void keepLeavesARunningJobAloneAndCancelRemovesIt() throws Exception {
        QueueKeys keys = keys("cancelled");
        scheduler.schedule("cancelled", "job", "p", Duration.ZERO);
        Claimed running = claim(keys, "job", Duration.ofSeconds(30)).get(0);
        assertEquals(ScheduleResult.KEPT,
                scheduler.schedule("cancelled", "job", "other", Duration.ZERO));
        assertTrue(scheduler.cancel("cancelled", "job"));
        assertEquals(0, get(store.ack(keys, keys.shardOf("job"), List.of(new Ack("job", running.token(), null)))));
        assertTrue(scheduler.find("cancelled", "job").isEmpty());
        assertEquals(0, scheduler.stats("cancelled").running());
    }

    @Test
    void aJobWaitingForItsRetryShowsTheRetryTime() throws Exception {
        QueueKeys keys = keys("retrying");
        Instant due = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        scheduler.schedule("retrying", "job", "p", due);
        Claimed running = claim(keys, "job", Duration.ofSeconds(30)).get(0);
        assertEquals(RetryOutcome.RETRIED, get(store.retry(keys, keys.shardOf("job"), "job", running.token(),
                Duration.ofHours(1).toMillis(), "boom", false, null, withLease(Duration.ofSeconds(30)))));
        JobInfo info = scheduler.find("retrying", "job").orElseThrow();
        assertEquals(JobInfo.State.PENDING, info.state());
        assertTrue(info.dueAt().isAfter(due.plus(Duration.ofMinutes(59))), info.dueAt()::toString);
        assertEquals("boom", info.lastError());
        assertEquals(1, info.attempts());
    }

    @Test
    void rescheduleDoesNotMoveARunningJob() throws Exception {
        QueueKeys keys = keys("running");
        scheduler.schedule("running", "job", "p", Duration.ZERO);
        claim(keys, "job", Duration.ofSeconds(30));
        assertEquals(false, scheduler.reschedule("running", "job", Duration.ofHours(1)));
        assertEquals(1, scheduler.stats("running").running());
    }
}
