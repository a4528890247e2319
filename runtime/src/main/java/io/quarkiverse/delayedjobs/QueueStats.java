package io.quarkiverse.delayedjobs;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Figures of one queue, summed over its shards.
 *
 * @param pending jobs waiting for their due time or for a worker
 * @param running jobs claimed by a worker
 * @param dead dead letters
 * @param nextDueAt the earliest due time of a pending job, retries included
 * @param lag how long the oldest due pending job has been waiting; zero if none is due
 */
public record QueueStats(long pending, long running, long dead, Optional<Instant> nextDueAt, Duration lag) {
}
