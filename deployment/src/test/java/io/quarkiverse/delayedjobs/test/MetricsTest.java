package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.RedisClientOptions;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;

/**
 * With Micrometer in the application, each queue has counters of its schedule calls and deliveries, lateness and
 * duration timers, and pending / running / dead gauges read from Redis; they show in the Prometheus scrape.
 */
public class MetricsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Micrometer.class, Handlers.class, RedisTestServer.class))
            .setForcedDependencies(Micrometer.WITH_PROMETHEUS)
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "metrics")
            .overrideConfigKey("quarkus.delayed-jobs.queues.metered-failing.max-attempts", "2")
            .overrideConfigKey("quarkus.delayed-jobs.queues.metered-failing.backoff.initial", "100ms")
            .overrideConfigKey("quarkus.delayed-jobs.queues.metered-held.concurrency", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.metered-held.claim-ahead", "0s");

    static class Handlers {
        @Delayed("metered-fine")
        void fine() {
        }

        @Delayed("metered-failing")
        void failing() {
            throw new IllegalStateException("downstream unavailable");
        }

        static final CountDownLatch heldStarted = new CountDownLatch(1);
        static final CountDownLatch release = new CountDownLatch(1);

        @Delayed("metered-held")
        void held() throws InterruptedException {
            heldStarted.countDown();
            assertTrue(release.await(30, TimeUnit.SECONDS));
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    MeterRegistry registry;

    @Inject
    RedisDataSource redis;

    @TestHTTPResource("/q/metrics")
    URL metrics;

    private double count(String name, String queue) {
        // Meters of deliveries are made with the first delivery of their queue.
        Search search = registry.find(name).tag("queue", queue);
        return search.counter() != null ? search.counter().count()
                : search.timer() != null ? search.timer().count() : 0;
    }

    private double gauge(String name, String queue) {
        return registry.get(name).tag("queue", queue).gauge().value();
    }

    private double scheduled(String queue, String result) {
        Counter counter = registry.find("delayed.jobs.scheduled").tags("queue", queue, "result", result).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void countsScheduleCallsByResult() {
        double created = scheduled("metered-fine", "created");
        double kept = scheduled("metered-fine", "kept");
        double replaced = scheduled("metered-fine", "replaced");
        double elsewhere = scheduled("elsewhere", "created");
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("metered-fine", "later:1", null, Duration.ofHours(1)));
        assertEquals(ScheduleResult.KEPT, scheduler.schedule("metered-fine", "later:1", null, Duration.ofHours(2)));
        assertEquals(ScheduleResult.KEPT, scheduler.schedule("metered-fine", "later:1", null, Duration.ofHours(3)));
        assertEquals(ScheduleResult.REPLACED,
                scheduler.schedule("metered-fine", "later:1", null, Duration.ofHours(2), OnConflict.REPLACE));
        // A queue with no handler here is counted as well.
        scheduler.schedule("elsewhere", "later:2", null, Duration.ofHours(1));
        assertEquals(created + 1, scheduled("metered-fine", "created"));
        assertEquals(kept + 2, scheduled("metered-fine", "kept"));
        assertEquals(replaced + 1, scheduled("metered-fine", "replaced"));
        assertEquals(elsewhere + 1, scheduled("elsewhere", "created"));
        // No delivery meters for a queue this instance only produces to.
        assertTrue(registry.find("delayed.jobs.started").tag("queue", "elsewhere").meters().isEmpty());
        assertTrue(registry.find("delayed.jobs.lateness").tag("queue", "elsewhere").meters().isEmpty());
        scheduler.cancel("metered-fine", "later:1");
        scheduler.cancel("elsewhere", "later:2");
    }

    @Test
    void countsDeliveriesAndTimesThem() throws Exception {
        double failingStarted = count("delayed.jobs.started", "metered-failing");
        double failingFailed = count("delayed.jobs.failed", "metered-failing");
        double failingRetried = count("delayed.jobs.retried", "metered-failing");
        double failingDead = count("delayed.jobs.dead.lettered", "metered-failing");
        double failingLateness = count("delayed.jobs.lateness", "metered-failing");
        scheduler.schedule("metered-fine", "now:1", null, Duration.ZERO);
        scheduler.schedule("metered-failing", "now:2", null, Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> count("delayed.jobs.succeeded", "metered-fine") == 1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("delayed.jobs.dead.lettered", "metered-failing") == failingDead + 1);
        // Counted once: the counter stays there.
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).untilAsserted(
                () -> assertEquals(failingDead + 1, count("delayed.jobs.dead.lettered", "metered-failing"),
                        "delayed.jobs.dead.lettered of metered-failing"));
        assertEquals(1, count("delayed.jobs.started", "metered-fine"));
        assertEquals(1, count("delayed.jobs.lateness", "metered-fine"));
        assertEquals(1, count("delayed.jobs.duration", "metered-fine"));
        assertEquals(0, count("delayed.jobs.failed", "metered-fine"));
        assertEquals(failingStarted + 2, count("delayed.jobs.started", "metered-failing"));
        assertEquals(failingFailed + 2, count("delayed.jobs.failed", "metered-failing"));
        assertEquals(failingRetried + 1, count("delayed.jobs.retried", "metered-failing"));
        assertEquals(0, count("delayed.jobs.succeeded", "metered-failing"));
        // The second attempt keeps the job's due time: its lateness would be the backoff, so only the first counts.
        assertEquals(failingLateness + 1, count("delayed.jobs.lateness", "metered-failing"));
        String scrape = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(metrics.toURI()).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(scrape.contains("delayed_jobs_succeeded_total{queue=\"metered-fine\"} 1.0"), scrape);
        Matcher dead = Pattern.compile("(?m)^delayed_jobs_dead_lettered_total\\{queue=\"metered-failing\"} (\\S+)$")
                .matcher(scrape);
        assertTrue(dead.find(), scrape);
        assertEquals(failingDead + 1, Double.parseDouble(dead.group(1)), scrape);
    }

    /** Vert.x's metrics of Redis clients tell the engine's calls from the application's. */
    @Test
    void theEngineCallsCountUnderAClientNameOfTheirOwn() {
        double before = redisCompleted("<default>");
        for (int i = 0; i < 10; i++) {
            scheduler.schedule("metered-fine", "own-client:" + i, null, Duration.ofHours(1));
        }
        assertEquals(before, redisCompleted("<default>"), "calls counted for the application's client");
        assertTrue(redisCompleted(RedisClientOptions.METRICS_NAME) >= 10, "the engine's calls counted under its name");
        redis.execute("PING");
        assertEquals(before + 1, redisCompleted("<default>"), "the application's call counted for its client");
    }

    private double redisCompleted(String clientName) {
        return Search.in(registry).name("redis.completed").tag("clientName", clientName).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    /** The lag of a queue whose one handler slot is taken while a job is due: it grows, in seconds. */
    @Test
    void theLagGaugeShowsHowLongTheEarliestDueJobWaited() throws Exception {
        assertEquals(0, gauge("delayed.jobs.lag", "metered-held"));
        scheduler.schedule("metered-held", "blocker", null, Duration.ZERO);
        try {
            assertTrue(Handlers.heldStarted.await(10, TimeUnit.SECONDS));
            scheduler.schedule("metered-held", "waiting", null, Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> gauge("delayed.jobs.lag", "metered-held") >= 1.5);
            assertEquals("seconds", registry.get("delayed.jobs.lag").tag("queue", "metered-held").gauge().getId()
                    .getBaseUnit());
        } finally {
            Handlers.release.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> gauge("delayed.jobs.lag", "metered-held") == 0);
    }

    @Test
    void gaugesShowTheQueueFiguresInRedis() {
        scheduler.schedule("metered-fine", "pending:1", null, Duration.ofHours(1));
        scheduler.schedule("metered-fine", "pending:2", null, Duration.ofHours(1));
        // A gauge read off the event loop waits for a reading at most a second old.
        await().atMost(Duration.ofSeconds(5)).until(() -> gauge("delayed.jobs.pending", "metered-fine") == 2);
        assertEquals(0, gauge("delayed.jobs.running", "metered-fine"));
        scheduler.cancel("metered-fine", "pending:1");
        await().atMost(Duration.ofSeconds(5)).until(() -> gauge("delayed.jobs.pending", "metered-fine") == 1);
        scheduler.cancel("metered-fine", "pending:2");
        double deadLettered = count("delayed.jobs.dead.lettered", "metered-failing");
        scheduler.schedule("metered-failing", "dies:1", null, Duration.ZERO);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("delayed.jobs.dead.lettered", "metered-failing") == deadLettered + 1);
        long dead = scheduler.stats("metered-failing").dead();
        assertTrue(dead >= 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> gauge("delayed.jobs.dead", "metered-failing") == dead);
    }
}
