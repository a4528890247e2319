package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.HealthEndpoints.LIVE;
import static io.quarkiverse.delayedjobs.test.HealthEndpoints.LIVENESS_CHECK;
import static io.quarkiverse.delayedjobs.test.HealthEndpoints.READINESS_CHECK;
import static io.quarkiverse.delayedjobs.test.HealthEndpoints.READY;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine.StartedWorker;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.Context;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;

/**
 * With Redis up and the worker running, the readiness check "Delayed jobs" and the liveness check "Delayed jobs
 * workers" are UP, and say which queue they looked at. A worker whose event loop is blocked makes the liveness check
 * DOWN within its bound, naming the queue, and UP again once the loop is free.
 */
public class HealthChecksTest {

    private static final String QUEUE = "health-work";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(
                    jar -> jar.addClasses(Handler.class, EventLoopRoute.class, HealthEndpoints.class, VertxFutures.class,
                            RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "health");

    static class Handler {
        @Delayed(QUEUE)
        void run() {
        }
    }

    /** Tells which event loop of the HTTP server serves a connection. */
    @Singleton
    static class EventLoopRoute {
        void route(@Observes Router router) {
            router.get("/event-loop").handler(rc -> rc.end(Thread.currentThread().getName()));
        }
    }

    @Inject
    DelayedJobsEngine engine;

    @Test
    void readyAndAliveWhileRedisAnswersAndTheWorkerRuns() {
        HealthEndpoints.Answer ready = HealthEndpoints.get(READY);
        assertEquals(200, ready.status(), ready.body());
        JsonObject readiness = ready.check(READINESS_CHECK);
        assertEquals("UP", readiness.getString("status"), readiness.encode());
        assertEquals(QUEUE, readiness.getJsonObject("data").getString("queue"));

        HealthEndpoints.Answer live = HealthEndpoints.get(LIVE);
        assertEquals(200, live.status(), live.body());
        JsonObject liveness = live.check(LIVENESS_CHECK);
        assertEquals("UP", liveness.getString("status"), liveness.encode());
        assertEquals("alive", liveness.getJsonObject("data").getString(QUEUE));
    }

    @Test
    void aBlockedWorkerEventLoopMakesLivenessDown() throws Exception {
        List<StartedWorker> workers = engine.startedWorkers();
        assertEquals(List.of(QUEUE), workers.stream().map(StartedWorker::queue).toList());
        Context context = workers.get(0).context();
        // The health endpoint answers on the event loop of its connection: it must not be the one to block.
        HttpClient client = clientServedBesides(VertxFutures.threadOf(context));

        CountDownLatch release = new CountDownLatch(1);
        VertxFutures.block(context, release);
        try {
            long start = System.nanoTime();
            HealthEndpoints.Answer live = HealthEndpoints.get(client, LIVE);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertEquals(503, live.status(), live.body());
            JsonObject liveness = live.check(LIVENESS_CHECK);
            assertEquals("DOWN", liveness.getString("status"), liveness.encode());
            assertEquals("event loop blocked: ran no task within 3000 ms",
                    liveness.getJsonObject("data").getString(QUEUE));
            assertTrue(tookMs < 10_000, "the liveness check answered after " + tookMs + " ms");
        } finally {
            release.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(
                () -> "UP".equals(HealthEndpoints.get(client, LIVE).check(LIVENESS_CHECK).getString("status")));
    }

    /**
     * A client whose connection an event loop other than {@code thread} serves. The server hands new connections to
     * its event loops in turn, so one of a few new clients gets another loop.
     */
    private static HttpClient clientServedBesides(String thread) {
        for (int i = 0; i < 16; i++) {
            HttpClient client = HealthEndpoints.newClient();
            if (!HealthEndpoints.get(client, "/event-loop").body().equals(thread)) {
                return client;
            }
        }
        return fail("Every connection was served by " + thread);
    }
}
