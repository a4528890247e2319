package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonObject;

/**
 * A running instance does not take its queue's shard count on trust for ever: deleted by hand, it is recorded again
 * within a poll interval; recorded anew with another count (by a producer in another language that found none, whose
 * jobs would land in shards this instance never claims), the queue's calls fail and say so, and the instance is not
 * ready, until it is set right.
 */
public class ShardCountKeptTest {

    static final String URL = RedisTestServer.sharedUrl();
    static final String KEY = "shard-count-kept:{kept}:shards";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Kept.class, RedisTestServer.class, HealthEndpoints.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "shard-count-kept")
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "200ms");

    static class Kept {
        @Delayed("kept")
        void run() {
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aDeletedCountIsRecordedAgainAndAnotherOneIsRefused() {
        assertEquals("8", RedisTestServer.command(URL, "GET", KEY));
        assertEquals(":1", RedisTestServer.command(URL, "DEL", KEY));
        await().atMost(Duration.ofSeconds(10)).until(() -> "8".equals(RedisTestServer.command(URL, "GET", KEY)));

        assertEquals("+OK", RedisTestServer.command(URL, "SET", KEY, "16"));
        DelayedJobsException refused = await().atMost(Duration.ofSeconds(10)).until(() -> {
            try {
                scheduler.stats("kept");
                return null;
            } catch (DelayedJobsException e) {
                return e;
            }
        }, e -> e != null);
        assertEquals("Queue 'kept' has 16 shards recorded in Redis (key " + KEY + ") but this instance is configured"
                + " with 8: set quarkus.delayed-jobs.queues.\"kept\".shards=16 (the shard count cannot change while the"
                + " queue has jobs)", refused.getMessage());
        // Not ready while it lasts, saying why.
        JsonObject readiness = HealthEndpoints.readiness();
        assertEquals("DOWN", readiness.getString("status"), readiness.encode());
        assertEquals(refused.getMessage(), readiness.getJsonObject("data").getString("shard counts"));

        // Set right again, the queue's calls go through again.
        assertEquals("+OK", RedisTestServer.command(URL, "SET", KEY, "8"));
        await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(DelayedJobsException.class)
                .until(() -> scheduler.stats("kept") != null);
        await().atMost(Duration.ofSeconds(10)).until(() -> "UP".equals(HealthEndpoints.readiness().getString("status")));
    }
}
