package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Redis comes back without its data (every key gone, every connection closed) under a producer-only instance, which
 * has no wake subscription to tell it: its next schedule records the queue's shard count again, so that the jobs it
 * writes are not in a queue without one.
 */
public class ProducerDataLossTest {

    static final String URL = RedisTestServer.sharedUrl("producer-data-loss");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "producer-data-loss")
            .overrideConfigKey("quarkus.delayed-jobs.enabled", "false");

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theShardCountIsRecordedAgainAfterTheConnectionWasLost() {
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("produced", "job-1", "payload", Duration.ofHours(1)));
        assertEquals("+OK", RedisTestServer.command(URL, "FLUSHALL"));
        RedisTestServer.command(URL, "CLIENT", "KILL", "TYPE", "normal");
        // The calls made before the engine heard of the loss fail on the closed connection; the next one opens a new
        // one.
        ScheduleResult result = await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .until(() -> scheduler.schedule("produced", "job-2", "payload", Duration.ofHours(1)), r -> r != null);
        assertEquals(ScheduleResult.CREATED, result);
        assertEquals("8", RedisTestServer.command(URL, "GET", "producer-data-loss:{produced}:shards"));
    }
}
