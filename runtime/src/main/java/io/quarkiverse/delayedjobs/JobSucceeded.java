package io.quarkiverse.delayedjobs;

import java.time.Duration;

/**
 * CDI event fired when a handler succeeded: it returned, or its {@code Uni} or {@code CompletionStage} completed. The
 * job's acknowledgement follows; should it not reach Redis before the lease ends, the job runs again, as any job
 * delivered at least once may. Observe it with {@code @Observes} (called on a thread of the extension,
 * {@code delayed-jobs-events-…}, where it may block) or {@code @ObservesAsync}.
 *
 * @param job the delivery that succeeded
 * @param duration how long the handler ran
 */
public record JobSucceeded(JobContext job, Duration duration) {
}
