package io.quarkiverse.delayedjobs;

import java.time.Instant;

/**
 * A stored job as seen by {@code find} and {@code deadLetters}.
 *
 * @param queue the queue
 * @param id the job id
 * @param state pending, running or dead
 * @param dueAt when the job is (or was) due; for a job waiting for a retry, the time of that retry
 * @param attempts deliveries so far
 * @param lastError the error of the last failed delivery, or {@code null}
 * @param payload the payload as JSON text
 * @param cron the cron expression of a recurring job, or {@code null}
 */
public record JobInfo(String queue, String id, State state, Instant dueAt, int attempts, String lastError, String payload,
        String cron) {

    /** Where a job is in its life. */
    public enum State {
        /** Waiting for its due time, or due and not yet claimed. */
        PENDING,
        /**
         * Claimed by a worker: running, held by its worker until its due time or a free handler, or left behind by a
         * worker whose lease ran out until another worker claims it again.
         */
        RUNNING,
        /** Failed too often, or had an unreadable payload; kept in the bounded dead letters. */
        DEAD
    }
}
