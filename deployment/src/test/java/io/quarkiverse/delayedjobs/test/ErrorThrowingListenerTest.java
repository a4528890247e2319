package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.runtime.JobListener;
import io.quarkus.test.QuarkusUnitTest;

/**
 * GuardedListeners promises that a listener that throws changes nothing for the jobs (JobEvents guards observers the
 * same way, Errors such as AssertionError included). A listener whose succeeded() throws an AssertionError must not
 * keep the job from being acknowledged.
 */
public class ErrorThrowingListenerTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, Throwing.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "error-listener")
            .overrideConfigKey("quarkus.delayed-jobs.queues.listened.lease", "2s");

    static class Handler {
        static final AtomicInteger runs = new AtomicInteger();
        static final CountDownLatch ran = new CountDownLatch(1);

        @Delayed("listened")
        void run() {
            runs.incrementAndGet();
            ran.countDown();
        }
    }

    @Singleton
    static class Throwing implements JobListener {
        @Override
        public void succeeded(JobContext job, long durationNanos) {
            throw new AssertionError("listener fails on success");
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void anErrorThrowingListenerDoesNotKeepTheJobFromBeingAcknowledged() throws Exception {
        scheduler.schedule("listened", "job", null, Duration.ZERO);
        assertTrue(Handler.ran.await(10, TimeUnit.SECONDS), "the job ran");
        // Acknowledged within a second or so once the handler returned; without the ack it stays RUNNING and runs
        // again once its 2 s lease runs out.
        await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.find("listened", "job").isEmpty());
        assertEquals(1, Handler.runs.get());
    }
}
