package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code enabled=false}: the instance schedules, but claims nothing, subscribes to nothing and sends no command while
 * idle.
 */
public class ProducerOnlyTest {

    static final String URL = RedisTestServer.sharedUrl("producer-only");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Work.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "producer")
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "200ms")
            .overrideConfigKey("quarkus.delayed-jobs.enabled", "false");

    static class Work {
        static final AtomicInteger runs = new AtomicInteger();

        @Delayed("work")
        void run() {
            runs.incrementAndGet();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void noWorkerNoSubscriptionNoIdleCommands() {
        scheduler.schedule("work", "job", null, Duration.ZERO);
        assertEquals("*0", RedisTestServer.command(URL, "PUBSUB", "CHANNELS"), "no subscription");
        long before = commands();
        // Ten poll intervals with no call of our own: an idle worker, a claim or a heartbeat would have sent something.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> Work.runs.get() == 0);
        // The INFO of each reading counts itself.
        assertEquals(1, commands() - before, "commands sent by the idle producer-only instance");
        assertEquals(JobInfo.State.PENDING, scheduler.find("work", "job").orElseThrow().state());
        assertEquals(0, Work.runs.get());
    }

    private static long commands() {
        Matcher m = Pattern.compile("total_commands_processed:(\\d+)").matcher(RedisTestServer.command(URL, "INFO",
                "stats"));
        assertTrue(m.find());
        return Long.parseLong(m.group(1));
    }
}
