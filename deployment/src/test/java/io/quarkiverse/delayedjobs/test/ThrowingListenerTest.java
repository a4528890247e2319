package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.JobListener;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A listener of the job path that throws, both where a producer tells it (a schedule call) and where the engine does
 * (a delivery), changes nothing for the jobs, and is logged at WARN once for the instance, not once per side.
 */
public class ThrowingListenerTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, Throwing.class, RedisTestServer.class,
                    LoggedMessages.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "throwing-listener");

    static class Handler {
        static final CountDownLatch ran = new CountDownLatch(3);

        @Delayed("listened")
        void run() {
            ran.countDown();
        }
    }

    @Singleton
    static class Throwing implements JobListener {
        static final AtomicInteger calls = new AtomicInteger();

        @Override
        public void scheduled(String queue, ScheduleResult result) {
            calls.incrementAndGet();
            throw new IllegalStateException("listener fails on schedule");
        }

        @Override
        public void started(JobContext job, long latenessMs) {
            calls.incrementAndGet();
            throw new IllegalStateException("listener fails on start");
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aThrowingListenerIsWarnedOfOnceAndChangesNothing() throws Exception {
        try (LoggedMessages warnings = LoggedMessages.of(JobListener.class.getName(), Level.WARNING)) {
            for (int i = 0; i < 3; i++) {
                assertEquals(ScheduleResult.CREATED, scheduler.schedule("listened", "job-" + i, null, Duration.ZERO));
            }
            assertTrue(Handler.ran.await(10, TimeUnit.SECONDS), "every job ran");
            assertEquals(6, Throwing.calls.get(), "the listener was told of each schedule call and each start");
            List<String> messages = warnings.messages();
            assertEquals(1, messages.size(), "one warning for the instance: " + messages);
            assertTrue(messages.get(0).contains(Throwing.class.getName()), messages.get(0));
        }
    }
}
