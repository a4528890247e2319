package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * A JSON {@code null} payload reaches any parameter type as {@code null}, also when a producer in another language
 * wrote it with whitespace around it (JSON allows it; Go's json.Encoder ends its output with a line break, say).
 */
public class JsonNullPayloadTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, Reading.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "json-null")
            .overrideConfigKey("quarkus.delayed-jobs.max-attempts", "1");

    public record Reading(double celsius) {
    }

    static class Handlers {
        static final Map<String, Optional<Object>> received = new ConcurrentHashMap<>();

        @Delayed("text")
        void text(String payload) {
            received.put("text", Optional.ofNullable(payload));
        }

        @Delayed("object")
        void object(JsonObject payload) {
            received.put("object", Optional.ofNullable(payload));
        }

        @Delayed("array")
        void array(JsonArray payload) {
            received.put("array", Optional.ofNullable(payload));
        }

        @Delayed("record")
        void record(Reading payload) {
            received.put("record", Optional.ofNullable(payload));
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Test
    void aJsonNullWithWhitespaceAroundItReachesEveryParameterTypeAsNull() throws Exception {
        for (String queue : new String[] { "text", "object", "array", "record" }) {
            store.schedule(queue, "null-job", " null\n", 0, true, OnConflict.KEEP).toCompletionStage()
                    .toCompletableFuture().get();
        }
        for (String queue : new String[] { "text", "object", "array", "record" }) {
            await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find(queue, "null-job")
                    .map(j -> j.state() == JobInfo.State.DEAD).orElse(true));
            assertEquals(Optional.empty(), scheduler.find(queue, "null-job").map(JobInfo::lastError), queue);
            assertEquals(Optional.empty(), Handlers.received.get(queue), queue);
        }
    }
}
