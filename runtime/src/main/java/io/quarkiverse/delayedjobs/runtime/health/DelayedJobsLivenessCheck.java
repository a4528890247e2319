package io.quarkiverse.delayedjobs.runtime.health;

import java.time.Duration;
import java.util.List;

import jakarta.inject.Singleton;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

import io.quarkiverse.delayedjobs.runtime.HandlerRegistry;
import io.quarkiverse.delayedjobs.runtime.config.DelayedJobsRuntimeConfig;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine.StartedWorker;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;

/**
 * Alive when every queue worker of this instance runs: it was started, was not stopped, and its event loop runs a
 * task within {@link #TIMEOUT}. A worker's claims, acks and lease renewals all run on that loop, so a loop held by a
 * handler that blocks it (a {@code @NonBlocking} one that waits, say) stops the queue in this instance while Redis and
 * every other check look fine. Redis plays no part: an unreachable Redis is the readiness check's business, and
 * restarting the instance would not bring it back.
 */
@Liveness
@Singleton
class DelayedJobsLivenessCheck implements AsyncHealthCheck {

    static final String NAME = "Delayed jobs workers";
    /**
     * The longest a worker's event loop may take to run the check's task. Vert.x warns of a blocked event loop after
     * 2 s; a loop busy with its ordinary work runs a task within milliseconds.
     */
    static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final String ALIVE = "alive";
    private static final String STOPPED = "stopped";
    private static final String NOT_ANSWERING = "event loop blocked: ran no task within " + TIMEOUT.toMillis() + " ms";

    private final DelayedJobsEngine engine;
    private final HandlerRegistry registry;
    private final DelayedJobsRuntimeConfig config;

    DelayedJobsLivenessCheck(DelayedJobsEngine engine, HandlerRegistry registry, DelayedJobsRuntimeConfig config) {
        this.engine = engine;
        this.registry = registry;
        this.config = config;
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        List<StartedWorker> workers = engine.startedWorkers();
        if (workers.isEmpty()) {
            return Uni.createFrom().item(HealthCheckResponse.named(NAME).up().withData("workers", noWorkers()).build());
        }
        // Every worker at once: a blocked loop costs the timeout once, not once per queue.
        return Uni.join().all(workers.stream().map(DelayedJobsLivenessCheck::probe).toList()).andFailFast()
                .map(states -> {
                    HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME).up();
                    for (int i = 0; i < workers.size(); i++) {
                        response.withData(workers.get(i).queue(), states.get(i));
                        if (!ALIVE.equals(states.get(i))) {
                            response.down();
                        }
                    }
                    return response.build();
                });
    }

    /** The state of a worker, read on its own event loop: a loop that runs no task gives no answer. */
    private static Uni<String> probe(StartedWorker worker) {
        return Uni.createFrom().<String> emitter(answer -> worker.context()
                .runOnContext(v -> answer.complete(worker.stopped().getAsBoolean() ? STOPPED : ALIVE)))
                .ifNoItem().after(TIMEOUT).recoverWithItem(NOT_ANSWERING);
    }

    private String noWorkers() {
        if (registry.handlers().isEmpty()) {
            return "none: no @Delayed handler in this application";
        }
        if (!config.enabled()) {
            return "none: producer only (quarkus.delayed-jobs.enabled=false)";
        }
        return "none started yet";
    }
}
