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

/**
 * Blocks on the reactive scheduler; Mutiny refuses to block an event-loop thread.
 */
@Singleton
public class DelayedSchedulerImpl implements DelayedScheduler {

    private final ReactiveDelayedSchedulerImpl reactive;

    public DelayedSchedulerImpl(ReactiveDelayedSchedulerImpl reactive) {
        this.reactive = reactive;
    }

    @Override
    public ScheduleResult schedule(String queue, String id, Object payload, Duration delay, OnConflict onConflict) {
        return reactive.schedule(queue, id, payload, delay, onConflict).await().indefinitely();
    }

    @Override
    public ScheduleResult schedule(String queue, String id, Object payload, Instant dueAt, OnConflict onConflict) {
        return reactive.schedule(queue, id, payload, dueAt, onConflict).await().indefinitely();
    }

    @Override
    public ScheduleResult recurring(String queue, String id, String cron, ZoneId zone, Object payload,
            MisfirePolicy misfire) {
        return reactive.recurring(queue, id, cron, zone, payload, misfire).await().indefinitely();
    }

    @Override
    public boolean cancel(String queue, String id) {
        return reactive.cancel(queue, id).await().indefinitely();
    }

    @Override
    public boolean reschedule(String queue, String id, Instant dueAt) {
        return reactive.reschedule(queue, id, dueAt).await().indefinitely();
    }

    @Override
    public boolean reschedule(String queue, String id, Duration delay) {
        return reactive.reschedule(queue, id, delay).await().indefinitely();
    }

    @Override
    public Optional<JobInfo> find(String queue, String id) {
        return reactive.find(queue, id).await().indefinitely();
    }

    @Override
    public QueueStats stats(String queue) {
        return reactive.stats(queue).await().indefinitely();
    }

    @Override
    public List<JobInfo> deadLetters(String queue, int limit) {
        return reactive.deadLetters(queue, limit).await().indefinitely();
    }

    @Override
    public boolean requeue(String queue, String id) {
        return reactive.requeue(queue, id).await().indefinitely();
    }
}
