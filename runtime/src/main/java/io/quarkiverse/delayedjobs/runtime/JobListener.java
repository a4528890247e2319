package io.quarkiverse.delayedjobs.runtime;

import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.ScheduleResult;

/**
 * Told what happens to jobs, by the producers and the queue workers of this instance: the CDI events and the metrics
 * are built on it. Methods are called on any thread, often an event loop, once per job: they must be quick and must
 * not block. One that throws is logged ({@link GuardedListeners}).
 */
public interface JobListener {

    /** A {@code schedule} call completed with this result. */
    default void scheduled(String queue, ScheduleResult result) {
    }

    /** A {@code schedule} call whose arguments were taken failed: Redis did not answer, or refused it. */
    default void scheduleFailed(String queue) {
    }

    /** A handler is about to run this delivery, {@code latenessMs} after its due time by this instance's clock. */
    default void started(JobContext job, long latenessMs) {
    }

    /** The handler returned, or its asynchronous result completed, after {@code durationNanos}. */
    default void succeeded(JobContext job, long durationNanos) {
    }

    /** The handler threw, or its asynchronous result failed, or the payload could not be read. */
    default void failed(JobContext job, long durationNanos, Throwable failure) {
    }

    /** Redis recorded the failure of this delivery: the job is due again after a backoff. */
    default void retried(JobContext job, Throwable failure) {
    }

    /** Redis recorded the failure of this delivery: the job is now a dead letter. */
    default void deadLettered(JobContext job, Throwable failure) {
    }
}
