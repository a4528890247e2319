package io.quarkiverse.delayedjobs.runtime.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jboss.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.quarkiverse.delayedjobs.runtime.config.DelayedJobsRuntimeConfig;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.cron.OccurrencePlanner;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.runtime.configuration.DurationConverter;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.runtime.configuration.MemorySizeConverter;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.RedisOptions;

/**
 * A worker the engine never started claims nothing, whatever wakes it: when the engine's start failed after the wake
 * subscription's connection was asked for, Redis's late confirmation of that subscription woke every worker, which
 * then claimed jobs and never renewed their leases. Found by a review helper. (No Redis here: the store only counts
 * the claims asked of it.)
 */
class UnstartedWorkerTest {

    static final int SHARDS = 2;

    final Vertx vertx = Vertx.vertx();
    final DueTimer dueTimer = new DueTimer();

    @AfterEach
    void close() throws Exception {
        dueTimer.stop();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** A store that fails every claim at once and counts the shards asked of it. */
    static final class CountingStore extends JobStore {
        final AtomicInteger claimedShards = new AtomicInteger();

        CountingStore(Vertx vertx, DelayedJobsRuntimeConfig config) {
            super(RedisOptions::new, vertx, config, false);
        }

        @Override
        public List<Future<ClaimBatch>> claim(QueueKeys k, QueueSettings settings, List<ClaimRequest> requests) {
            claimedShards.addAndGet(requests.size());
            return requests.stream().map(r -> Future.<ClaimBatch> failedFuture("no Redis here")).toList();
        }
    }

    @Test
    void aWorkerWokenBeforeItsStartClaimsNothing() throws Exception {
        // The defaults, read with Quarkus's converters ("30s", "1M").
        DelayedJobsRuntimeConfig config = new SmallRyeConfigBuilder().withMapping(DelayedJobsRuntimeConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter())
                .withConverter(MemorySize.class, 100, new MemorySizeConverter())
                .build().getConfigMapping(DelayedJobsRuntimeConfig.class);
        CountingStore store = new CountingStore(vertx, config);
        QueueWorker worker = new QueueWorker(new QueueKeys("unstarted", "q", SHARDS), QueueSettings.of(config, "q"),
                store, null, vertx, dueTimer, Duration.ofSeconds(30), new OccurrencePlanner(1),
                new FailedCalls(Logger.getLogger(QueueWorker.class), "the calls of the queue workers"),
                new LostLeases(Logger.getLogger(QueueWorker.class), System::nanoTime));

        worker.wakeAll();
        drain(worker);
        assertEquals(0, store.claimedShards.get(), "shards claimed by a worker never started");

        worker.start();
        drain(worker);
        assertEquals(SHARDS, store.claimedShards.get(), "shards claimed once started");
    }

    /** Waits until the tasks on the worker's context ran, and those they posted in turn. */
    private static void drain(QueueWorker worker) throws Exception {
        CompletableFuture<Void> drained = new CompletableFuture<>();
        worker.context().runOnContext(v -> worker.context().runOnContext(w -> drained.complete(null)));
        drained.get(10, TimeUnit.SECONDS);
    }
}
