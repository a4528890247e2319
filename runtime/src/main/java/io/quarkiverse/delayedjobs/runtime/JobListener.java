package io.quarkiverse.delayedjobs.runtime;

import java.util.List;

import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.ScheduleResult;

/**
 * Told what happens to jobs, by the producers and the queue workers of this instance: the CDI events and the metrics
 * are built on it. Methods are called on any thread, often an event loop, once per job: they must be quick and must
 * not block or throw.
 */
public interface JobListener {

    /** A {@code schedule} call completed with this result. */
    default void scheduled(String queue, ScheduleResult result) {
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

    /** One listener that tells each of {@code listeners} in turn; one that does nothing when there are none. */
    static JobListener of(List<? extends JobListener> listeners) {
        if (listeners.size() == 1) {
            return listeners.get(0);
        }
        JobListener[] all = listeners.toArray(JobListener[]::new);
        return new JobListener() {
            @Override
            public void scheduled(String queue, ScheduleResult result) {
                for (JobListener l : all) {
                    l.scheduled(queue, result);
                }
            }

            @Override
            public void started(JobContext job, long latenessMs) {
                for (JobListener l : all) {
                    l.started(job, latenessMs);
                }
            }

            @Override
            public void succeeded(JobContext job, long durationNanos) {
                for (JobListener l : all) {
                    l.succeeded(job, durationNanos);
                }
            }

            @Override
            public void failed(JobContext job, long durationNanos, Throwable failure) {
                for (JobListener l : all) {
                    l.failed(job, durationNanos, failure);
                }
            }

            @Override
            public void retried(JobContext job, Throwable failure) {
                for (JobListener l : all) {
                    l.retried(job, failure);
                }
            }

            @Override
            public void deadLettered(JobContext job, Throwable failure) {
                for (JobListener l : all) {
                    l.deadLettered(job, failure);
                }
            }
        };
    }
}
