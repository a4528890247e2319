package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * While Redis refuses every call (down, loading its files, or here denying the scripts), each shard's claim fails
 * every second: the workers log the first failure at WARN, without a stack trace, and the end of the outage at INFO,
 * not a WARN per call, nor per queue (a pressure trial's instance of 61 queues wrote 3,000 lines, stack traces
 * included, for a one-second restart of Redis).
 */
public class RedisOutageLogTest {

    static final String URL = RedisTestServer.sharedUrl("outage-log");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, LoggedMessages.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "outage-log");

    static class Handler {
        static final Set<String> ran = ConcurrentHashMap.newKeySet();

        @Delayed("logged")
        void run(JobContext job) {
            ran.add(job.id());
        }

        @Delayed("also-logged")
        void runToo(JobContext job) {
            ran.add(job.id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void oneWarningForTheOutageAndOneLineAtItsEnd() {
        for (int i = 0; i < 16; i++) {
            scheduler.schedule("logged", "job-" + i, null, Duration.ofSeconds(1));
            scheduler.schedule("also-logged", "other-" + i, null, Duration.ofSeconds(1));
        }
        try (LoggedMessages logged = LoggedMessages.of("io.quarkiverse.delayedjobs.runtime.worker.QueueWorker", Level.INFO)) {
            long refusedBefore = RedisTestServer.rejectedCalls(URL, "eval|evalsha");
            try {
                assertEquals("+OK", RedisTestServer.command(URL, "ACL", "SETUSER", "default", "-eval", "-evalsha"));
                // The claims of the shards with due jobs of both queues, each refused, then again a second later.
                await().atMost(Duration.ofSeconds(15))
                        .until(() -> RedisTestServer.rejectedCalls(URL, "eval|evalsha") >= refusedBefore + 24);
            } finally {
                assertEquals("+OK", RedisTestServer.command(URL, "ACL", "SETUSER", "default", "+eval", "+evalsha"));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> Handler.ran.size() == 32);
            await().atMost(Duration.ofSeconds(5)).until(() -> logged.messages().stream()
                    .anyMatch(m -> m.startsWith("Redis answers the calls of the queue workers again, after ")));
            assertEquals(1, logged.messages().stream().filter(m -> m.startsWith("Claiming due jobs of queue")).count(),
                    logged.messages().toString());
            assertEquals(List.of(), logged.withTrace());
        }
    }
}
