package io.quarkiverse.delayedjobs;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

/**
 * Schedules, moves, cancels and inspects delayed jobs, blocking the caller until Redis answered. Each operation on
 * one job is one round trip to the shard of its id. Use {@link ReactiveDelayedScheduler} on an event-loop thread.
 * <p>
 * Invalid arguments raise an {@link IllegalArgumentException} naming the argument and the rule, before anything is
 * written; Redis failures raise a {@link DelayedJobsException}.
 */
public interface DelayedScheduler {

    /**
     * Schedules a job due after {@code delay}, counted from this call by the Redis server's clock; an existing job
     * with that id is kept ({@link OnConflict#KEEP}).
     */
    default ScheduleResult schedule(String queue, String id, Object payload, Duration delay) {
        return schedule(queue, id, payload, delay, OnConflict.KEEP);
    }

    /**
     * Schedules a job due at {@code dueAt} (a time in the past means due now); an existing job with that id is kept
     * ({@link OnConflict#KEEP}).
     */
    default ScheduleResult schedule(String queue, String id, Object payload, Instant dueAt) {
        return schedule(queue, id, payload, dueAt, OnConflict.KEEP);
    }

    /**
     * Schedules a job due after {@code delay}, counted from this call by the Redis server's clock (never due before
     * the delay passed by that clock; see the concepts page of the docs, "Never early").
     *
     * @param queue the queue, matching {@code [A-Za-z0-9._-]{1,64}}
     * @param id the job id chosen by the caller, at most 512 bytes in UTF-8
     * @param payload serialized as JSON with the application's {@code ObjectMapper}; may be null
     * @param delay not negative
     * @param onConflict what to do when a pending, running or dead job has the same id
     */
    ScheduleResult schedule(String queue, String id, Object payload, Duration delay, OnConflict onConflict);

    /**
     * Schedules a job due at {@code dueAt}.
     *
     * @see #schedule(String, String, Object, Duration, OnConflict)
     */
    ScheduleResult schedule(String queue, String id, Object payload, Instant dueAt, OnConflict onConflict);

    /**
     * Creates or updates a recurring job: each occurrence of {@code cron} in {@code zone} runs the queue's handler
     * once across all instances, with {@code payload}. Registering the same schedule and payload again leaves it as it
     * is ({@link ScheduleResult#KEPT}); a different one replaces it at once. {@link #cancel(String, String)} removes
     * it. Missed occurrences are run once ({@link MisfirePolicy#FIRE_ONCE}).
     *
     * @param cron a Unix 5-field or Quartz 6/7-field expression
     * @param zone the time zone the expression is read in
     */
    default ScheduleResult recurring(String queue, String id, String cron, ZoneId zone, Object payload) {
        return recurring(queue, id, cron, zone, payload, MisfirePolicy.FIRE_ONCE);
    }

    /**
     * Creates or updates a recurring job with the given misfire policy.
     *
     * @see #recurring(String, String, String, ZoneId, Object)
     */
    ScheduleResult recurring(String queue, String id, String cron, ZoneId zone, Object payload, MisfirePolicy misfire);

    /**
     * Removes the pending, running or dead job with that id. A running delivery of it finishes, but can no longer
     * ack, retry or renew it.
     *
     * @return whether a job had that id
     */
    boolean cancel(String queue, String id);

    /**
     * Moves the due time of a pending job, or of one a worker claimed ahead of its due time and holds, due 50 ms or
     * more later by the Redis clock (it is handed back, pending at the new time). A held job due sooner is left to
     * start at its time: the worker might hear of the move only after it started it.
     *
     * @return whether such a job had that id; jobs that run, held jobs due sooner, and dead ones, are not moved
     */
    boolean reschedule(String queue, String id, Instant dueAt);

    /**
     * Moves the due time of a pending job, or of one claimed ahead and held (due 50 ms or more later), to
     * {@code delay} from now by the Redis server's clock.
     *
     * @return whether such a job had that id; jobs that run, held jobs due sooner, and dead ones, are not moved
     */
    boolean reschedule(String queue, String id, Duration delay);

    /**
     * Reads the job with that id, pending, running or dead.
     */
    Optional<JobInfo> find(String queue, String id);

    /**
     * Counts the jobs of a queue.
     */
    QueueStats stats(String queue);

    /**
     * Lists the newest dead letters of a queue.
     *
     * @param limit between 1 and 10000
     */
    List<JobInfo> deadLetters(String queue, int limit);

    /**
     * Moves a dead letter back to the pending jobs, due now, with its attempts reset.
     *
     * @return whether a dead letter had that id
     */
    boolean requeue(String queue, String id);
}
