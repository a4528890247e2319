package io.quarkiverse.delayedjobs;

/**
 * CDI event fired once Redis has moved a job to the dead letters after its handler failed on the last allowed attempt,
 * or at once when its payload could not be read. A job whose lease ran out on its last attempt (its instance died) is
 * moved by the next claim of its shard: the instance that made that claim fires the event, with the delivery whose
 * lease ran out and an {@link IllegalStateException} {@code lease expired on attempt n of n}. A recurring job with
 * occurrences ahead is never a dead letter: when an occurrence is given up, its next occurrence is armed. Observe it
 * with {@code @Observes} (called on a thread of the extension, {@code delayed-jobs-events-…}, where it may block) or
 * {@code @ObservesAsync}.
 *
 * @param job the delivery that failed last, or whose lease ran out
 * @param failure what its handler threw, the failure of its asynchronous result, or the lease that ran out
 */
public record JobDeadLettered(JobContext job, Throwable failure) {
}
