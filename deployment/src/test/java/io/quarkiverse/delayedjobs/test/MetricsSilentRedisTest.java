package io.quarkiverse.delayedjobs.test;

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

    @Test
    void aScrapeWaitsForTheFiguresOnceForAllQueues() throws Exception {
        // The engine opened its connection at startup: silenced, it delivers nothing until redis-timeout replaces it.
        SilentProxy.silenceAll();
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        long start = System.nanoTime();
        HttpResponse<String> scrape = client.send(
                HttpRequest.newBuilder(metrics.toURI()).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(200, scrape.statusCode());
        // No reading succeeded yet: every gauge shows NaN.
        for (int i = 1; i <= 4; i++) {
            assertTrue(scrape.body().contains("delayed_jobs_pending{queue=\"silent-" + i + "\"} NaN"), scrape.body());
        }
        assertTrue(tookMs >= 2000 && tookMs < 4000, "the scrape took " + tookMs + " ms");
    }

    @AfterAll
    static void cut() {
        // The stop waits up to redis-timeout for the calls in flight: told that the connection closed, they fail now.
        SilentProxy.cutSilenced();
    }
}
