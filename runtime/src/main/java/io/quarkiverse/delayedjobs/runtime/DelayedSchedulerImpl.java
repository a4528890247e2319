package io.quarkiverse.delayedjobs.runtime;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

import jakarta.inject.Singleton;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.MisfirePolicy;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;

/**
 * Blocks on the reactive scheduler, and refuses to block an event-loop thread before anything is sent.
 */
@Singleton
public class DelayedSchedulerImpl implements DelayedScheduler {

    private final ReactiveDelayedSchedulerImpl reactive;

    public DelayedSchedulerImpl(ReactiveDelayedSchedulerImpl reactive) {
        this.reactive = reactive;
    }

    @Override
    public ScheduleResult schedule(String queue, String id, Object payload, Duration delay, OnConflict onConflict) {
        return await(reactive.schedule(queue, id, payload, delay, onConflict));
    }

    @Override
    public ScheduleResult schedule(String queue, String id, Object payload, Instant dueAt, OnConflict onConflict) {
        return await(reactive.schedule(queue, id, payload, dueAt, onConflict));
    }

    @Override
    public ScheduleResult recurring(String queue, String id, String cron, ZoneId zone, Object payload,
            MisfirePolicy misfire) {
        return await(reactive.recurring(queue, id, cron, zone, payload, misfire));
    }

    @Override
    public boolean cancel(String queue, String id) {
        return await(reactive.cancel(queue, id));
    }

    @Override
    public boolean reschedule(String queue, String id, Instant dueAt) {
        return await(reactive.reschedule(queue, id, dueAt));
    }

    @Override
    public boolean reschedule(String queue, String id, Duration delay) {
        return await(reactive.reschedule(queue, id, delay));
    }

    @Override
    public Optional<JobInfo> find(String queue, String id) {
        return await(reactive.find(queue, id));
    }

    @Override
    public QueueStats stats(String queue) {
        return await(reactive.stats(queue));
    }

    @Override
    public List<JobInfo> deadLetters(String queue, int limit) {
        return await(reactive.deadLetters(queue, limit));
    }

    @Override
    public boolean requeue(String queue, String id) {
        return await(reactive.requeue(queue, id));
    }

    /** Mutiny would refuse too, with a message that names neither this API nor the one to use instead. */
    private static <T> T await(Uni<T> call) {
        if (!Infrastructure.canCallerThreadBeBlocked()) {
            throw new IllegalStateException("DelayedScheduler waits for Redis and must not be called on "
                    + Thread.currentThread().getName() + ", which must not block: use ReactiveDelayedScheduler there");
        }
        return call.await().indefinitely();
    }
}
