package io.quarkiverse.delayedjobs.runtime.health;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import io.quarkiverse.delayedjobs.runtime.Causes;
import io.quarkiverse.delayedjobs.runtime.HandlerRegistry;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.redis.Script;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;

/**
 * Ready when Redis runs the scripts of the job protocol for this instance, writes included: it runs a script
 * ({@code health.lua}) that reads a key of the first shard of a queue and writes nothing, but which Redis refuses
 * wherever it refuses writes (a read-only replica, {@code min-replicas-to-write} unmet, a failed disk write,
 * {@code maxmemory} reached), on the connection every operation of the extension uses. A PING would not show a script
 * that Redis refuses (an ACL without {@code EVALSHA}, say), nor writes refused, and the Redis client's own check pings
 * the connections of its pool, not this one. Redis is asked when the check is called and at no other time, so that an
 * idle instance stays as quiet as without the check.
 * <p>
 * On a Redis Cluster it looks in every shard of the queue, which spread over the masters: ready while the master of
 * one of them runs the script, since the engine goes on with the shards of the masters it reaches; the shards whose
 * master does not are named in the data.
 * <p>
 * Not ready either while a queue this instance used has a shard count recorded in Redis other than its own: its calls
 * on that queue fail (a producer-only instance starts all the same, and learns it at its first call).
 */
@Readiness
@Singleton
class DelayedJobsReadinessCheck implements AsyncHealthCheck {

    static final String NAME = "Delayed jobs";
    /**
     * The longest the check waits for Redis. {@code redis-timeout} (10 s by default) bounds every call too, but probes
     * give up within seconds: the check says why before they do.
     */
    static final Duration TIMEOUT = Duration.ofSeconds(3);
    /**
     * The queue looked at in an application with no handler. Any name would do: the script only reads, so the check
     * leaves no key of this queue behind.
     */
    private static final String QUEUE_OF_NO_HANDLER = "health-check";

    private final JobStore store;
    private final String queue;
    /** The keys of each shard looked at: the first one, or on a cluster every one. */
    private final List<List<String>> shards;
    /**
     * What the probe asks the ACL about besides the commands: PUBLISH on the queue's wake channel, and SUBSCRIBE to it
     * when this instance runs workers (a producer-only instance subscribes to nothing).
     */
    private final List<Object> channel;

    DelayedJobsReadinessCheck(JobStore store, HandlerRegistry registry) {
        this.store = store;
        this.queue = registry.handlers().isEmpty() ? QUEUE_OF_NO_HANDLER : registry.handlers().get(0).queue();
        // The keys of a shard do not depend on the shard count, which a producer may not have checked yet: the
        // configured count names the shards the instance uses.
        int count = store.cluster() ? QueueSettings.of(store.config(), queue).shards() : 1;
        QueueKeys keys = new QueueKeys(store.config().keyPrefix(), queue, count);
        this.shards = IntStream.range(0, count).mapToObj(keys::shard).toList();
        boolean subscribes = store.config().enabled() && !registry.handlers().isEmpty();
        this.channel = List.of(keys.wakeChannel(), subscribes ? "1" : "");
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        List<Uni<Throwable>> looks = shards.stream().map(this::look).toList();
        return Uni.join().all(looks).andFailFast().map(failures -> {
            List<Integer> failing = IntStream.range(0, failures.size()).filter(i -> failures.get(i) != null).boxed()
                    .toList();
            HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME).withData("queue", queue);
            String error = failing.isEmpty() ? null : Causes.message(failures.get(failing.get(0)));
            // Every call of this instance on such a queue fails until the counts agree: a rollout with a wrong count
            // stops at its first instance rather than replacing the ones that work.
            List<String> disagreeing = store.shardCountDisagreements();
            if (!disagreeing.isEmpty()) {
                response.down().withData("shard counts", String.join("; ", disagreeing));
                return (error == null ? response : response.withData("error", error)).build();
            }
            if (error == null) {
                return response.up().build();
            }
            if (failing.size() == failures.size()) {
                return response.down().withData("error", error).build();
            }
            return response.up().withData("failing shards", failing.toString()).withData("error", error).build();
        });
    }

    /** Runs the script on a shard: null when it ran, or why not. */
    private Uni<Throwable> look(List<String> keys) {
        return Uni.createFrom().completionStage(() -> store.run(Script.HEALTH, keys.subList(0, 1), channel)
                .toCompletionStage())
                .ifNoItem().after(TIMEOUT)
                .failWith(() -> new TimeoutException("Redis did not answer within " + TIMEOUT.toMillis() + " ms"))
                .map(answer -> (Throwable) null)
                .onFailure().recoverWithItem(e -> e);
    }
}
