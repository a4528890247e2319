package io.quarkiverse.delayedjobs.runtime;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;

import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.MisfirePolicy;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.cron.CronSchedule;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.tracing.JobTracing;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

@Singleton
public class ReactiveDelayedSchedulerImpl implements ReactiveDelayedScheduler {

    private final JobStore store;
    private final PayloadCodec codec;
    private final JobListener listener;
    private final JobTracing tracing;

    public ReactiveDelayedSchedulerImpl(JobStore store, PayloadCodec codec, GuardedListeners listener,
            Instance<JobTracing> tracing) {
        this.store = store;
        this.codec = codec;
        this.listener = listener;
        this.tracing = tracing.isResolvable() ? tracing.get() : JobTracing.NONE;
    }

    @Override
    public Uni<ScheduleResult> schedule(String queue, String id, Object payload, Duration delay,
            OnConflict onConflict) {
        return call(() -> schedule(queue, id, payload, JobArguments.delay(delay), true, onConflict));
    }

    @Override
    public Uni<ScheduleResult> schedule(String queue, String id, Object payload, Instant dueAt,
            OnConflict onConflict) {
        return call(() -> schedule(queue, id, payload, JobArguments.dueAt(dueAt), false, onConflict));
    }

    private Future<ScheduleResult> schedule(String queue, String id, Object payload, long dueOrDelayMs,
            boolean relative, OnConflict onConflict) {
        JobArguments.queue(queue);
        JobArguments.id(id);
        JobArguments.notNull("onConflict", onConflict);
        String json = codec.write(payload, store.config().maxPayloadSize().asLongValue());
        JobTracing.Run span = tracing.sending(queue, id);
        Future<ScheduleResult> stored;
        try {
            stored = store.schedule(queue, id, json, dueOrDelayMs, relative, onConflict).map(scheduled -> {
                listener.scheduled(queue, scheduled.result());
                return scheduled.result();
            }).onFailure(e -> listener.scheduleFailed(queue));
        } catch (RuntimeException e) {
            span.end(e);
            throw e;
        }
        if (span != JobTracing.Run.NONE) {
            stored.onComplete(ar -> span.end(ar.cause()));
        }
        return stored;
    }

    @Override
    public Uni<ScheduleResult> recurring(String queue, String id, String cron, ZoneId zone, Object payload,
            MisfirePolicy misfire) {
        return call(() -> {
            JobArguments.queue(queue);
            JobArguments.id(id);
            JobArguments.notNull("zone", zone);
            JobArguments.notNull("misfire", misfire);
            CronSchedule schedule = CronSchedule.of(cron, zone.getId(), misfire);
            String json = codec.write(payload, store.config().maxPayloadSize().asLongValue());
            return store.recurring(queue, id, json, schedule).map(JobStore.Scheduled::result);
        });
    }

    @Override
    public Uni<Boolean> cancel(String queue, String id) {
        return call(() -> store.cancel(JobArguments.queue(queue), JobArguments.id(id)));
    }

    @Override
    public Uni<Boolean> reschedule(String queue, String id, Instant dueAt) {
        return call(() -> store.reschedule(JobArguments.queue(queue), JobArguments.id(id), JobArguments.dueAt(dueAt),
                false));
    }

    @Override
    public Uni<Boolean> reschedule(String queue, String id, Duration delay) {
        return call(() -> store.reschedule(JobArguments.queue(queue), JobArguments.id(id), JobArguments.delay(delay),
                true));
    }

    @Override
    public Uni<Optional<JobInfo>> find(String queue, String id) {
        return call(() -> store.find(JobArguments.queue(queue), JobArguments.id(id)));
    }

    @Override
    public Uni<QueueStats> stats(String queue) {
        return call(() -> store.stats(JobArguments.queue(queue)));
    }

    @Override
    public Uni<List<JobInfo>> deadLetters(String queue, int limit) {
        return call(() -> store.deadLetters(JobArguments.queue(queue), JobArguments.limit(limit)));
    }

    @Override
    public Uni<Boolean> requeue(String queue, String id) {
        return call(() -> store.requeue(JobArguments.queue(queue), JobArguments.id(id)));
    }

    /**
     * Checks the arguments at subscription, so that a bad call fails the Uni instead of throwing. A call made on an
     * event loop continues on the caller's context, as the calls of the Quarkus Redis client do: the answer may come on
     * another caller's (a job that waited for a call that caller sent, a call that waited for the connection to open),
     * and a duplicated context carries the data of its request (a reactive session, a trace, the MDC).
     */
    private static <T> Uni<T> call(Supplier<Future<T>> operation) {
        return Uni.createFrom().emitter(emitter -> {
            Context caller = Context.isOnEventLoopThread() ? Vertx.currentContext() : null;
            operation.get().onComplete(ar -> {
                if (caller == null || Vertx.currentContext() == caller) {
                    emit(emitter, ar);
                } else {
                    caller.runOnContext(v -> emit(emitter, ar));
                }
            });
        });
    }

    private static <T> void emit(UniEmitter<? super T> emitter, AsyncResult<T> ar) {
        if (ar.succeeded()) {
            emitter.complete(ar.result());
        } else {
            emitter.fail(ar.cause());
        }
    }
}
