package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobDeadLettered;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A failure whose write Redis carried out, but whose answer came after {@code redis-timeout}, is written again; the
 * second write finds the delivery's claim gone. The job then shows that the first write was done: its dead letter or
 * its pending retry holds the delivery's error and attempt, so the move is told as any other (event, counter). The
 * same holds for the last occurrence of a recurring job given up after its leases ran out.
 */
public class LostFailureAnswerTest {

    static final String REDIS = RedisTestServer.sharedUrl();
    static final String BOOM = "java.lang.IllegalStateException: boom";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Micrometer.class, Handler.class, Observer.class,
                    RedisTestServer.class, SilentProxy.class))
            .setForcedDependencies(Micrometer.WITH_PROMETHEUS)
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(REDIS))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "lost-failure-answer")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.once.max-attempts", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.twice.max-attempts", "2")
            .overrideConfigKey("quarkus.delayed-jobs.queues.twice.backoff.initial", "1h")
            .overrideConfigKey("quarkus.delayed-jobs.queues.ended.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.ended.claim-ahead", "0s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.ended.max-attempts", "1");

    static class Handler {
        static volatile CountDownLatch started;
        static volatile CountDownLatch fail;

        @Delayed("once")
        void once(JobContext context) throws InterruptedException {
            failWhenTold(context);
        }

        @Delayed("twice")
        void twice(JobContext context) throws InterruptedException {
            failWhenTold(context);
        }

        @Delayed("ended")
        void ended(JobContext context) {
            if (context.id().equals("warm-up")) {
                throw new IllegalStateException("warm-up");
            }
        }

        private static void failWhenTold(JobContext context) throws InterruptedException {
            if (context.id().equals("warm-up")) {
                throw new IllegalStateException("warm-up");
            }
            started.countDown();
            assertTrue(fail.await(30, TimeUnit.SECONDS));
            throw new IllegalStateException("boom");
        }
    }

    static class Observer {
        static final List<JobDeadLettered> dead = new CopyOnWriteArrayList<>();

        void dead(@Observes JobDeadLettered event) {
            dead.add(event);
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Inject
    MeterRegistry registry;

    @Test
    void aDeadLetterWhoseAnswerWasLostIsToldOnce() throws Exception {
        failWithTheAnswerLost("once");
        await().atMost(Duration.ofSeconds(10)).until(() -> deadLetters("job") == 1);
        JobInfo dead = scheduler.find("once", "job").orElseThrow();
        assertEquals(JobInfo.State.DEAD, dead.state());
        assertEquals(BOOM, dead.lastError());
        assertEquals(2.0, count("delayed.jobs.dead.lettered", "once")); // the warm-up's and the job's
        assertEquals(1, deadLetters("job"));
    }

    @Test
    void aRetryWhoseAnswerWasLostIsCounted() throws Exception {
        failWithTheAnswerLost("twice");
        // The warm-up's retry and the job's.
        await().atMost(Duration.ofSeconds(10)).until(() -> count("delayed.jobs.retried", "twice") == 2.0);
        JobInfo retrying = scheduler.find("twice", "job").orElseThrow();
        assertEquals(JobInfo.State.PENDING, retrying.state());
        assertEquals(1, retrying.attempts());
        assertEquals(BOOM, retrying.lastError());
    }

    @Test
    void aGivenUpLastOccurrenceWhoseAnswerWasLostIsToldOnce() throws Exception {
        scheduler.schedule("ended", "warm-up", null, Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("ended", "warm-up").orElseThrow()
                .lastError() != null);
        // A schedule whose one occurrence left is the next full hour.
        ZonedDateTime next = ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.HOURS).plusHours(1);
        scheduler.recurring("ended", "last", String.format("0 0 %d %d %d ? %d", next.getHour(), next.getDayOfMonth(),
                next.getMonthValue(), next.getYear()), ZoneOffset.UTC, null);
        QueueKeys keys = store.queue("ended").toCompletionStage().toCompletableFuture().get();
        // A worker that then dies claims the occurrence ahead, on its one allowed attempt.
        QueueSettings dyingWorker = new QueueSettings(1, Duration.ofSeconds(1), 32, 16, Duration.ZERO, Duration.ZERO, 1,
                Duration.ofSeconds(1), Duration.ofHours(1));
        List<Claimed> claimed = store.claim(keys, 0, 0, Duration.ofHours(2).toMillis(), 1, dyingWorker, List.of())
                .toCompletionStage().toCompletableFuture().get().jobs();
        assertEquals(List.of("last"), claimed.stream().map(Claimed::id).toList());
        String claim = claimed.get(0).token().substring(0, claimed.get(0).token().indexOf('.'));

        SilentProxy.delayRepliesAfter("occurrence given up", 2500);
        try {
            // Its lease runs out now; the job due at once makes this instance claim it and give it up. Redis writes
            // that, but the answer comes after redis-timeout, and the write sent again finds the claim gone.
            assertEquals(":0", RedisTestServer.command(REDIS, "ZADD", keys.shard(0).get(1), "XX", "0", claim));
            scheduler.schedule("ended", "wake", null, Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> deadLetters("last") == 1);
        } finally {
            SilentProxy.delayRepliesAfter(null, 0);
        }
        JobInfo dead = scheduler.find("ended", "last").orElseThrow();
        assertEquals(JobInfo.State.DEAD, dead.state());
        assertEquals("lease expired on attempt 1 of 1; occurrence given up", dead.lastError());
        assertEquals(1, deadLetters("last"));
    }

    /**
     * Runs the queue's job until its handler waits, then holds back every answer of Redis by more than
     * {@code redis-timeout} while the handler fails, until Redis has written the failure.
     */
    private void failWithTheAnswerLost(String queue) throws Exception {
        // A failure written first loads the retry script: the call sent while the answers are held back runs at once
        // rather than wait for the answer NOSCRIPT.
        scheduler.schedule(queue, "warm-up", null, Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find(queue, "warm-up").orElseThrow()
                .lastError() != null);
        Handler.started = new CountDownLatch(1);
        Handler.fail = new CountDownLatch(1);
        scheduler.schedule(queue, "job", null, Duration.ZERO);
        assertTrue(Handler.started.await(10, TimeUnit.SECONDS));
        QueueKeys keys = store.queue(queue).toCompletionStage().toCompletableFuture().get();
        String errors = keys.shard(keys.shardOf("job")).get(4);
        SilentProxy.delayCommandReplies(2500);
        try {
            Handler.fail.countDown();
            // Read past the proxy: the failure's write is in Redis while its answer is still held back.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> RedisTestServer.command(REDIS, "HGET", errors, "job").equals(BOOM));
        } finally {
            SilentProxy.delayCommandReplies(0);
        }
    }

    private static long deadLetters(String id) {
        return Observer.dead.stream().filter(event -> event.job().id().equals(id)).count();
    }

    private double count(String name, String queue) {
        Counter counter = registry.find(name).tag("queue", queue).counter();
        return counter == null ? 0 : counter.count();
    }
}
