package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

public class ScheduleAndRunTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Greeter.class, Greeting.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "schedule-and-run");

    public record Greeting(String name) {
    }

    static class Greeter {
        static final CountDownLatch ran = new CountDownLatch(1);
        static volatile Greeting payload;
        static volatile Instant startedAt;
        static volatile Instant dueAt;

        @Delayed("greetings")
        void greet(Greeting greeting, JobContext context) {
            startedAt = Instant.now();
            dueAt = context.dueAt();
            payload = greeting;
            ran.countDown();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void runsTheJobAtItsDueTimeWithItsPayload() throws InterruptedException {
        ScheduleResult result = scheduler.schedule("greetings", "greet:1", new Greeting("Ada"), Duration.ofMillis(500));
        assertEquals(ScheduleResult.CREATED, result);
        assertTrue(Greeter.ran.await(10, TimeUnit.SECONDS));
        assertEquals("Ada", Greeter.payload.name());
        assertFalse(Greeter.startedAt.isBefore(Greeter.dueAt), "started " + Greeter.startedAt + " due " + Greeter.dueAt);
    }
}
