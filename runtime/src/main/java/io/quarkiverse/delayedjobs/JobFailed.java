package io.quarkiverse.delayedjobs;

import java.time.Duration;

/**
 * CDI event fired when a handler failed: it threw, its {@code Uni} or {@code CompletionStage} failed, or the payload
 * could not be read as its parameter type; also when it returned after its delivery lost its lease
 * ({@link JobContext#leaseLost()}), whose success is not recorded. Fired for every failed delivery, whether the job is
 * retried or not; when
 * the failure sends the job to the dead letters, {@link JobDeadLettered} follows. Observe it with {@code @Observes}
 * (called on a thread of the extension, {@code delayed-jobs-events-…}, where it may block) or {@code @ObservesAsync}.
 *
 * @param job the delivery that failed
 * @param failure what the handler threw, the failure of its asynchronous result, the payload that could not be read,
 *        or the lease lost before a success could be recorded
 * @param duration how long the handler ran
 */
public record JobFailed(JobContext job, Throwable failure, Duration duration) {
}
