package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * With a poll interval of an hour, idle workers still run new jobs on time: they sleep until the earliest known due
 * time and are woken when a job with an earlier due time is scheduled. Jobs never start before their due time.
 */
public class WakeUpTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Sleeper.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "wake")
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "1h");

    static class Sleeper {
        static final Map<String, Instant[]> runs = new ConcurrentHashMap<>();
        static final CountDownLatch early = new CountDownLatch(1);
        static final CountDownLatch spread = new CountDownLatch(30);

        @Delayed("sleepy")
        void run(JobContext context) {
            runs.put(context.id(), new Instant[] { context.dueAt(), Instant.now() });
            if (context.id().equals("soon")) {
                early.countDown();
            } else if (context.id().startsWith("spread")) {
                spread.countDown();
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void anEarlierJobWakesAWorkerSleepingUntilALaterOne() throws InterruptedException {
        scheduler.schedule("sleepy", "later", null, Duration.ofHours(1));
        scheduler.schedule("sleepy", "soon", null, Duration.ofMillis(300));
        assertTrue(Sleeper.early.await(10, TimeUnit.SECONDS), "the earlier job did not run within 10 s");
        assertFalse(Sleeper.runs.containsKey("later"));
    }

    @Test
    void jobsSpreadOverTheNextSecondsNeverStartEarly() throws InterruptedException {
        for (int i = 0; i < 30; i++) {
            scheduler.schedule("sleepy", "spread-" + i, null, Duration.ofMillis(200 + 97L * i));
        }
        assertTrue(Sleeper.spread.await(20, TimeUnit.SECONDS));
        for (int i = 0; i < 30; i++) {
            Instant[] run = Sleeper.runs.get("spread-" + i);
            assertFalse(run[1].isBefore(run[0]), "spread-" + i + " due " + run[0] + " started " + run[1]);
        }
    }
}
