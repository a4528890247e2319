package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
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
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A failure whose write Redis carried out, but whose answer came after {@code redis-timeout}, is written again; the
 * second write finds the delivery's claim gone. The job then shows that the first write was done: its dead letter or
 * its pending retry holds the delivery's error and attempt, so the move is told as any other (event, counter).
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
            .overrideConfigKey("quarkus.delayed-jobs.queues.twice.backoff.initial", "1h");

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
