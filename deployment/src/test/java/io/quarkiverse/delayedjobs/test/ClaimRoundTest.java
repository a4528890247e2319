package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.VertxFutures.get;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Ack;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClaimBatch;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClaimRequest;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.Future;

/**
 * A round of claims from several shards, as a worker sends it to one Redis server: one script call in which each
 * shard's due jobs are claimed into a batch of their own, under a claim of that shard, and the next round carries
 * each shard's acknowledgements. The application has no handler: the test plays the worker on the job store, and
 * every script call Redis counts is one of the test's.
 */
public class ClaimRoundTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, VertxFutures.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "claim-round");

    static final int SHARDS = 4;
    static final int JOBS_PER_SHARD = 3;
    static final QueueSettings SETTINGS = new QueueSettings(8, Duration.ofSeconds(30), 32, 16, Duration.ZERO,
            Duration.ZERO, 10, Duration.ofSeconds(1), Duration.ofHours(1));

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Inject
    RedisDataSource redis;

    List<ClaimBatch> round(QueueKeys keys, Map<Integer, List<Ack>> acks, int limit) throws Exception {
        List<ClaimRequest> requests = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            requests.add(new ClaimRequest(shard, limit, 0, 0, acks.getOrDefault(shard, List.of())));
        }
        List<ClaimBatch> batches = new ArrayList<>();
        for (Future<ClaimBatch> batch : store.claim(keys, SETTINGS, requests)) {
            batches.add(get(batch));
        }
        return batches;
    }

    @Test
    void oneCallClaimsEachShardsJobsAndTheNextCarriesEachShardsAcks() throws Exception {
        QueueKeys keys = get(store.queue("rounds"));
        // The first round loads the script (a NOSCRIPT answer would be one more call) and finds nothing.
        round(keys, Map.of(), 10).forEach(batch -> assertEquals(List.of(), batch.jobs()));
        Map<Integer, Set<String>> idsByShard = new HashMap<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            idsByShard.put(shard, new HashSet<>());
        }
        // The jobs of the other shards share index buckets with those of shard 0: a claim that worked on one shard's
        // index hashes with the keys of another would leave their entries behind.
        Set<Integer> buckets = new HashSet<>();
        for (int i = 0; idsByShard.values().stream().mapToInt(Set::size).sum() < SHARDS * JOBS_PER_SHARD; i++) {
            String id = "job-" + i;
            int shard = keys.shardOf(id);
            Set<String> ids = idsByShard.get(shard);
            if (ids != null && ids.size() < JOBS_PER_SHARD
                    && (shard == 0 || buckets.contains(QueueKeys.bucketOf(id)))) {
                ids.add(id);
                if (shard == 0) {
                    buckets.add(QueueKeys.bucketOf(id));
                }
                scheduler.schedule("rounds", id, "p", Duration.ZERO);
            }
        }

        long before = RedisTestServer.scriptCalls(redis);
        List<ClaimBatch> claimed = round(keys, Map.of(), 10);
        assertEquals(1, RedisTestServer.scriptCalls(redis) - before);
        Map<Integer, List<Ack>> acks = new HashMap<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            List<Claimed> jobs = claimed.get(shard).jobs();
            assertEquals(idsByShard.get(shard), jobs.stream().map(Claimed::id).collect(Collectors.toSet()),
                    "shard " + shard);
            // One claim per shard: its number is the part of the token before the dot.
            assertEquals(1, jobs.stream().map(job -> job.token().substring(0, job.token().indexOf('.'))).distinct()
                    .count(), "shard " + shard);
            acks.put(shard, jobs.stream().map(job -> new Ack(job.id(), job.token(), null)).toList());
            for (Claimed job : jobs) {
                assertEquals(Optional.of(JobInfo.State.RUNNING), scheduler.find("rounds", job.id()).map(JobInfo::state));
                // A pending job's index entry lives in its shard's index hash; a claim deletes it there.
                String index = keys.shard(shard).get(7) + ":" + QueueKeys.bucketOf(job.id());
                assertEquals(false, redis.hash(String.class).hexists(index, job.id()), job.id());
            }
        }
        assertEquals(SHARDS * JOBS_PER_SHARD, scheduler.stats("rounds").running());

        before = RedisTestServer.scriptCalls(redis);
        round(keys, acks, 0).forEach(batch -> assertEquals(List.of(), batch.jobs()));
        assertEquals(1, RedisTestServer.scriptCalls(redis) - before);
        QueueStats stats = scheduler.stats("rounds");
        assertEquals(0, stats.running());
        assertEquals(0, stats.pending());
        for (Set<String> ids : idsByShard.values()) {
            for (String id : ids) {
                assertEquals(Optional.empty(), scheduler.find("rounds", id));
            }
        }
    }
}
