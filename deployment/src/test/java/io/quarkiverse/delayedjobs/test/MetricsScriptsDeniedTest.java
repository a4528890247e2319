package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A Redis that answers but refuses the figures' script (an ACL that denies {@code EVALSHA} and {@code EVAL}) hears
 * from the gauges at most once a second per queue, as when it answers: a failed reading counts as a reading, even
 * before any succeeded.
 */
public class MetricsScriptsDeniedTest {

    private static final String USER = "metricsacl";
    private static final String QUEUE = "metrics-denied";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Micrometer.class, Handler.class, RedisTestServer.class))
            .setForcedDependencies(Micrometer.WITH_PROMETHEUS)
            .overrideConfigKey("quarkus.redis.hosts", urlWithUser())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "metrics-acl")
            // One script call a reading.
            .overrideConfigKey("quarkus.delayed-jobs.queues." + QUEUE + ".shards", "1")
            // A producer: no worker whose claims Redis would refuse too.
            .overrideConfigKey("quarkus.delayed-jobs.enabled", "false");

    /** A server of this test's own, whose ACL it changes, and a user that may do everything to begin with. */
    private static String urlWithUser() {
        String url = RedisTestServer.sharedUrl("metrics-acl");
        RedisTestServer.command(url, "ACL", "SETUSER", USER, "on", ">secret", "~*", "&*", "+@all");
        // A queue in use, whose figures take a script call: one that nobody used has none to read.
        RedisTestServer.command(url, "SET", "metrics-acl:{" + QUEUE + "}:shards", "1");
        return url.replace("redis://", "redis://" + USER + ":secret@");
    }

    static class Handler {
        @Delayed(QUEUE)
        void run() {
        }
    }

    @Inject
    MeterRegistry registry;

    @Test
    void refusedReadingsAreTriedAtMostOnceASecond() {
        String url = RedisTestServer.sharedUrl("metrics-acl");
        RedisTestServer.command(url, "ACL", "SETUSER", USER, "-evalsha", "-eval");
        long before = RedisTestServer.rejectedCalls(url, "eval|evalsha");
        Gauge pending = registry.get("delayed.jobs.pending").tag("queue", QUEUE).gauge();
        long start = System.nanoTime();
        int reads = 0;
        for (; reads < 30; reads++) {
            assertTrue(Double.isNaN(pending.value()));
        }
        long seconds = (System.nanoTime() - start) / 1_000_000_000;
        long refused = RedisTestServer.rejectedCalls(url, "eval|evalsha") - before;
        assertTrue(refused <= 1 + seconds, reads + " gauge reads in " + seconds + " s sent " + refused + " calls");
    }

    @Inject
    DelayedScheduler scheduler;

    /** A schedule call that Redis refuses counts with the result {@code failed}, so that producers can be alerted on. */
    @Test
    void aRefusedScheduleCountsAsFailed() {
        String url = RedisTestServer.sharedUrl("metrics-acl");
        RedisTestServer.command(url, "ACL", "SETUSER", USER, "+evalsha", "+eval");
        scheduler.schedule(QUEUE, "taken", null, Duration.ofHours(1));
        Counter failed = registry.get("delayed.jobs.scheduled").tags("queue", QUEUE, "result", "failed").counter();
        Counter created = registry.get("delayed.jobs.scheduled").tags("queue", QUEUE, "result", "created").counter();
        double before = failed.count();
        double createdBefore = created.count();
        RedisTestServer.command(url, "ACL", "SETUSER", USER, "-evalsha", "-eval");
        try {
            assertThrows(DelayedJobsException.class,
                    () -> scheduler.schedule(QUEUE, "refused", null, Duration.ofHours(1)));
            assertEquals(before + 1, failed.count());
            assertEquals(createdBefore, created.count());
            // Refused before anything is sent: not a call that failed.
            assertThrows(IllegalArgumentException.class, () -> scheduler.schedule(QUEUE, "", null, Duration.ofHours(1)));
            assertEquals(before + 1, failed.count());
        } finally {
            // The other tests read the queue's figures: empty.
            RedisTestServer.command(url, "ACL", "SETUSER", USER, "+evalsha", "+eval");
            scheduler.cancel(QUEUE, "taken");
        }
    }

    @Test
    void aReadingRefusedAfterOneThatSucceededShowsAsNaN() {
        String url = RedisTestServer.sharedUrl("metrics-acl");
        RedisTestServer.command(url, "ACL", "SETUSER", USER, "+evalsha", "+eval");
        Gauge pending = registry.get("delayed.jobs.pending").tag("queue", QUEUE).gauge();
        await().atMost(Duration.ofSeconds(5)).until(() -> pending.value() == 0);
        RedisTestServer.command(url, "ACL", "SETUSER", USER, "-evalsha", "-eval");
        // The figures of before would look current while Redis refuses to give new ones.
        await().atMost(Duration.ofSeconds(5)).until(() -> Double.isNaN(pending.value()));
    }
}
