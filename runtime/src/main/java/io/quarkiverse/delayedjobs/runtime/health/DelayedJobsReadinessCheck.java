package io.quarkiverse.delayedjobs.runtime.health;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import io.quarkiverse.delayedjobs.runtime.HandlerRegistry;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.redis.Script;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;

/**
 * Ready when Redis runs the scripts of the job protocol for this instance: it looks for a job by id ({@code find.lua},
 * which writes nothing) in the first shard of a queue, on the connection every operation of the extension uses. A
 * PING would not show a script that Redis refuses (an ACL without {@code EVALSHA}, say), and the Redis client's own
 * check pings the connections of its pool, not this one. Redis is asked when the check is called and at no other time,
 * so that an idle instance stays as quiet as without the check.
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
    /** Whether or not a job has this id, the answer shows that the script ran. */
    private static final String ID = "delayed-jobs:health-check";
    /**
     * The queue looked at in an application with no handler. Any name would do: the script only reads, so the check
     * leaves no key of this queue behind.
     */
    private static final String QUEUE_OF_NO_HANDLER = "health-check";

    private final JobStore store;
    private final String queue;
    private final List<String> keys;

    DelayedJobsReadinessCheck(JobStore store, HandlerRegistry registry) {
        this.store = store;
        this.queue = registry.handlers().isEmpty() ? QUEUE_OF_NO_HANDLER : registry.handlers().get(0).queue();
        // The keys of the first shard do not depend on the shard count, which a producer may not have checked yet.
        this.keys = new QueueKeys(store.config().keyPrefix(), queue, 1).shard(0);
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        return Uni.createFrom().completionStage(() -> store.run(Script.FIND, keys, List.of(ID)).toCompletionStage())
                .ifNoItem().after(TIMEOUT)
                .failWith(() -> new TimeoutException("Redis did not answer within " + TIMEOUT.toMillis() + " ms"))
                .map(answer -> HealthCheckResponse.named(NAME).up().withData("queue", queue).build())
                .onFailure().recoverWithItem(e -> HealthCheckResponse.named(NAME).down().withData("queue", queue)
                        .withData("error", e.getMessage() == null ? e.toString() : e.getMessage()).build());
    }
}
