package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobDeadLettered;
import io.quarkiverse.delayedjobs.JobFailed;
import io.quarkiverse.delayedjobs.runtime.JobListener;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Events fired before the application stops reach their synchronous observers: a stop does not interrupt an observer
 * that is running, nor drop the events waiting for it (the JobDeadLettered that follows a JobFailed of the same job).
 * Checked once the application has stopped; system properties carry what the observers saw across class loaders.
 */
public class EventsAtShutdownTest {

    static final String FAILED = "delayed-jobs.test.events-at-shutdown.failed-observer";
    static final String DEAD = "delayed-jobs.test.events-at-shutdown.dead-observer";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, Observers.class, Told.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "events-at-shutdown")
            .overrideConfigKey("quarkus.delayed-jobs.queues.doomed.max-attempts", "1")
            .setAfterAllCustomizer(() -> {
                assertEquals("finished", System.getProperty(FAILED),
                        "the JobFailed observer running when the application stopped was cut off");
                assertEquals("told", System.getProperty(DEAD),
                        "the JobDeadLettered fired before the application stopped never reached its observer");
            });

    static class Handler {
        @Delayed("doomed")
        void run() {
            throw new IllegalStateException("boom");
        }
    }

    @Singleton
    static class Observers {
        static final CountDownLatch failedObserverStarted = new CountDownLatch(1);

        void failed(@Observes JobFailed event) throws InterruptedException {
            failedObserverStarted.countDown();
            try {
                // The observer's own work, which takes a second (writing to a slow database, say).
                new CountDownLatch(1).await(1, TimeUnit.SECONDS);
                System.setProperty(FAILED, "finished");
            } catch (InterruptedException e) {
                System.setProperty(FAILED, "interrupted");
                throw e;
            }
        }

        void dead(@Observes JobDeadLettered event) {
            System.setProperty(DEAD, "told");
        }
    }

    /** Tells the test that the engine fired the JobDeadLettered (JobEvents is told in the same loop). */
    @Singleton
    static class Told implements JobListener {
        static final CountDownLatch deadLettered = new CountDownLatch(1);

        @Override
        public void deadLettered(JobContext job, Throwable failure) {
            deadLettered.countDown();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void eventsFiredBeforeTheStopReachTheirObservers() throws Exception {
        System.clearProperty(FAILED);
        System.clearProperty(DEAD);
        scheduler.schedule("doomed", "job", null, Duration.ZERO);
        assertTrue(Observers.failedObserverStarted.await(10, TimeUnit.SECONDS), "JobFailed was not observed");
        assertTrue(Told.deadLettered.await(10, TimeUnit.SECONDS), "the job was not dead-lettered");
        await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.find("doomed", "job").isPresent());
        // The application stops now, with the JobFailed observer running and the JobDeadLettered waiting for it.
    }
}
