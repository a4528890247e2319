package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonObject;

/**
 * A producer-only instance ({@code enabled=false}) is ready when Redis runs its scripts, and alive with no worker,
 * which the liveness check says. The readiness check costs Redis one script call each time it is called, the liveness
 * check nothing, and neither sends anything between calls. It is not ready while a queue it scheduled to has another
 * shard count recorded in Redis than its own.
 */
public class HealthProducerOnlyTest {

    static final String URL = RedisTestServer.sharedUrl("health-producer-only");
    private static final String QUEUE = "health-produced";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, HealthEndpoints.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "health-producer")
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "200ms")
            .overrideConfigKey("quarkus.delayed-jobs.enabled", "false");

    static class Handler {
        @Delayed(QUEUE)
        void run() {
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void readyAndAliveWithoutWorkersAndQuietBetweenCalls() {
        JsonObject readiness = HealthEndpoints.readiness();
        assertEquals("UP", readiness.getString("status"), readiness.encode());
        assertEquals(QUEUE, readiness.getJsonObject("data").getString("queue"));
        // The first call sent the script's text (NOSCRIPT): each later one is a single EVALSHA.
        long scriptsBefore = sum("cmdstat_eval(?:sha)?:calls=(\\d+)", "commandstats");
        assertEquals("UP", HealthEndpoints.readiness().getString("status"));
        assertEquals(1, sum("cmdstat_eval(?:sha)?:calls=(\\d+)", "commandstats") - scriptsBefore,
                "script calls of one readiness check");

        long before = sum("total_commands_processed:(\\d+)", "stats");
        // Ten poll intervals, the liveness check called all along: nothing reaches Redis.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> {
            JsonObject liveness = HealthEndpoints.liveness();
            return "UP".equals(liveness.getString("status"))
                    && "none: producer only (quarkus.delayed-jobs.enabled=false)"
                            .equals(liveness.getJsonObject("data").getString("workers"));
        });
        // The INFO of each reading counts itself.
        assertEquals(1, sum("total_commands_processed:(\\d+)", "stats") - before,
                "commands sent by the idle instance while its liveness check was called");
    }

    @Test
    void notReadyWhileAQueueItScheduledToHasAnotherShardCountRecorded() {
        String key = "health-producer:{other-count}:shards";
        assertEquals("+OK", RedisTestServer.command(URL, "SET", key, "16"));
        try {
            DelayedJobsException refused = assertThrows(DelayedJobsException.class,
                    () -> scheduler.schedule("other-count", "a", "p", Duration.ofHours(1)));
            // A producer-only instance learns it at its first call, and is not ready from then on, saying why.
            JsonObject readiness = HealthEndpoints.readiness();
            assertEquals("DOWN", readiness.getString("status"), readiness.encode());
            assertEquals(refused.getMessage(), readiness.getJsonObject("data").getString("shard counts"));
        } finally {
            assertEquals(":1", RedisTestServer.command(URL, "DEL", key));
        }
        // Its next call records the count it is configured with, and it is ready again.
        scheduler.schedule("other-count", "a", "p", Duration.ofHours(1));
        assertEquals("UP", HealthEndpoints.readiness().getString("status"));
        scheduler.cancel("other-count", "a");
    }

    /** The sum of the numbers {@code pattern} finds in a section of the server's INFO. */
    private static long sum(String pattern, String section) {
        Matcher m = Pattern.compile(pattern).matcher(RedisTestServer.command(URL, "INFO", section));
        long sum = 0;
        while (m.find()) {
            sum += Long.parseLong(m.group(1));
        }
        return sum;
    }
}
