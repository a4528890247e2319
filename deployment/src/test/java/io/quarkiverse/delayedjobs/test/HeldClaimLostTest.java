package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A job held until its due time whose claim Redis no longer knows (ended while the worker missed the revoke on the
 * wake channel) does not start: the renewal of the worker's leases finds the claim lost and drops the job.
 */
public class HeldClaimLostTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Held.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "held-lost")
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.claim-ahead", "1s")
            // Leases renewed every third of a second, well within the second a job is held.
            .overrideConfigKey("quarkus.delayed-jobs.queues.held.lease", "1s");

    static class Held {
        static final Set<String> started = ConcurrentHashMap.newKeySet();

        @Delayed("held")
        void run(JobContext context) {
            started.add(context.id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Inject
    RedisDataSource redis;

    @Test
    void aHeldJobWhoseClaimIsLostDoesNotStart() throws Exception {
        // Due in a second; the job due now is claimed with it, so that the worker holds it for about that second.
        scheduler.schedule("held", "lost", "x", Duration.ofSeconds(1));
        scheduler.schedule("held", "trigger", "x", Duration.ZERO);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
                .until(() -> scheduler.find("held", "lost").map(JobInfo::state).orElse(null) == JobInfo.State.RUNNING);

        // Its envelope goes without the revoke on the wake channel that a cancel would publish.
        QueueKeys keys = store.queue("held").toCompletionStage().toCompletableFuture().get();
        assertEquals(1, redis.hash(String.class).hdel(keys.shard(0).get(2), "lost"));

        scheduler.schedule("held", "after", "x", Duration.ofMillis(1500));
        await().atMost(Duration.ofSeconds(10)).until(() -> Held.started.contains("after"));
        assertFalse(Held.started.contains("lost"), "the job whose claim was lost started");
    }
}
