package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;

/**
 * A Redis that stops answering (the connection goes silent behind {@link SilentProxy}) holds a Prometheus scrape for
 * the 2 s the gauges wait for fresh figures, once for all the queues: a scrape that waited that long per queue would
 * outlast the scraper's timeout, and the instance's every meter would be lost along with the jobs' gauges.
 */
public class MetricsSilentRedisTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(
                    jar -> jar.addClasses(Micrometer.class, Handlers.class, RedisTestServer.class, SilentProxy.class))
            .setForcedDependencies(Micrometer.WITH_PROMETHEUS)
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "metrics-silent")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "20s")
            .overrideConfigKey("quarkus.redis.health.enabled", "false");

    static class Handlers {
        @Delayed("silent-1")
        void first() {
        }

        @Delayed("silent-2")
        void second() {
        }

        @Delayed("silent-3")
        void third() {
        }

        @Delayed("silent-4")
        void fourth() {
        }
    }

    @TestHTTPResource("/q/metrics")
    URL metrics;

    /**
     * And the gauges show NaN once their reading is overdue, on that scrape and the next ones, rather than the figures
     * of before the silence for as long as {@code redis-timeout} (an observability trial saw them for 30 s).
     */
    @Test
    void aScrapeWaitsForTheFiguresOnceForAllQueues() throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        String before = scrape(client);
        for (int i = 1; i <= 4; i++) {
            assertTrue(before.contains("delayed_jobs_pending{queue=\"silent-" + i + "\"} 0.0"), before);
        }
        // The engine's connection is open: silenced, it delivers nothing until redis-timeout replaces it. The figures
        // read before are kept for a second.
        SilentProxy.silenceAll();
        await().pollDelay(Duration.ofMillis(1100)).atMost(Duration.ofSeconds(2)).until(() -> true);
        long start = System.nanoTime();
        String during = scrape(client);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs >= 2000 && tookMs < 4000, "the scrape took " + tookMs + " ms");
        String next = scrape(client);
        for (int i = 1; i <= 4; i++) {
            assertTrue(during.contains("delayed_jobs_pending{queue=\"silent-" + i + "\"} NaN"), during);
            assertTrue(next.contains("delayed_jobs_pending{queue=\"silent-" + i + "\"} NaN"), next);
        }
    }

    private String scrape(HttpClient client) throws Exception {
        HttpResponse<String> scrape = client.send(
                HttpRequest.newBuilder(metrics.toURI()).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, scrape.statusCode());
        return scrape.body();
    }

    @AfterAll
    static void cut() {
        // The stop waits up to redis-timeout for the calls in flight: told that the connection closed, they fail now.
        SilentProxy.cutSilenced();
    }
}
