package io.quarkiverse.delayedjobs.runtime;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import jakarta.inject.Singleton;

import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.MisfirePolicy;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.cron.CronSchedule;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkus.arc.All;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Future;

@Singleton
public class ReactiveDelayedSchedulerImpl implements ReactiveDelayedScheduler {

    private final JobStore store;
    private final PayloadCodec codec;
    private final JobListener listener;

    public ReactiveDelayedSchedulerImpl(JobStore store, PayloadCodec codec, @All List<JobListener> listeners) {
        this.store = store;
        this.codec = codec;
        this.listener = JobListener.of(listeners);
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
        return store.schedule(queue, id, json, dueOrDelayMs, relative, onConflict).map(scheduled -> {
            listener.scheduled(queue, scheduled.result());
            return scheduled.result();
        });
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

    /** Checks the arguments at subscription, so that a bad call fails the Uni instead of throwing. */
    private static <T> Uni<T> call(Supplier<Future<T>> operation) {
        return Uni.createFrom().emitter(emitter -> operation.get().onComplete(ar -> {
            if (ar.succeeded()) {
                emitter.complete(ar.result());
            } else {
                emitter.fail(ar.cause());
            }
        }));
    }
}
