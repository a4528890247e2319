package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A Redis that stops answering for longer than the lease loses the leases of every job an instance runs or holds at
 * once: that is one event of the instance, logged as one WARN (then DEBUG, with a WARN a minute), not a WARN per job.
 * The jobs themselves still run again.
 */
public class LostLeasesLogTest {

    static final String URL = RedisTestServer.sharedUrl("lost-leases-log");
    static final int JOBS = 8;

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Quitter.class, RedisTestServer.class, LoggedMessages.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "lost-leases-log")
            .overrideConfigKey("quarkus.delayed-jobs.queues.quit.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.quit.concurrency", "8")
            .overrideConfigKey("quarkus.delayed-jobs.queues.quit.backoff.initial", "0s")
            .overrideConfigKey("quarkus.log.category.\"io.quarkiverse.delayedjobs\".level", "DEBUG");

    /** A job's first delivery works until its lease is lost, then returns without having done it. */
    static class Quitter {
        static final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        static final Set<String> quit = ConcurrentHashMap.newKeySet();
        static final CountDownLatch allStarted = new CountDownLatch(JOBS);
        /** Until Redis froze and thawed, the first deliveries wait for their lease to be lost. */
        static volatile boolean holding = true;

        @Delayed("quit")
        void quit(JobContext context) {
            runs.computeIfAbsent(context.id(), id -> new AtomicInteger()).incrementAndGet();
            if (holding && context.attempt() == 1) {
                allStarted.countDown();
                await().atMost(Duration.ofSeconds(30)).until(context::leaseLost);
                quit.add(context.id());
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aRedisThatFreezesPastTheLeaseIsOneWarningNotOnePerJob() throws Exception {
        IntStream.range(0, JOBS).forEach(i -> scheduler.schedule("quit", "job-" + i, null, Duration.ZERO));
        assertTrue(Quitter.allStarted.await(10, TimeUnit.SECONDS));
        try (LoggedMessages warnings = LoggedMessages.of("io.quarkiverse.delayedjobs", Level.WARNING);
                LoggedMessages all = LoggedMessages.of("io.quarkiverse.delayedjobs", Level.FINE)) {
            RedisTestServer.freeze(URL);
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> Quitter.quit.size() == JOBS);
            } finally {
                Quitter.holding = false;
                RedisTestServer.thaw(URL);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> IntStream.range(0, JOBS)
                    .allMatch(i -> Quitter.runs.containsKey("job-" + i) && scheduler.find("quit", "job-" + i).isEmpty()));
            // Each one's at some level; some deliveries find their claim gone instead, when Redis's lease ran out too.
            List<String> perJob = all.messages().stream().filter(m -> m.contains("lost its lease")
                    || m.contains("after its claim was lost")).toList();
            assertTrue(perJob.size() >= JOBS, "each delivery's lost lease is logged: " + perJob);
            List<String> lostWarnings = warnings.messages().stream().filter(m -> m.contains("lost its lease")
                    || m.contains("lease ended before its handler started")).toList();
            assertEquals(1, lostWarnings.size(), "one WARN for the lost leases: " + warnings.messages());
        }
        Quitter.quit.forEach(id -> assertEquals(2, Quitter.runs.get(id).get(), id + " ran again"));
    }
}
