package io.quarkiverse.delayedjobs.runtime.worker;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

/**
 * Logs the failed Redis calls of one queue worker by outage. While Redis is down or loading, every shard's claim, every
 * batch of acks and every renewal fails each second, and a warning each wrote thousands of lines in an outage of
 * minutes. So: the first failure at WARN with its cause, a WARN a minute while calls keep failing, the others at DEBUG;
 * and once every shard that failed has had a call succeed, one INFO. A shard that keeps failing (a bad key) keeps the
 * outage open, with its WARN a minute. Used on the worker's context only.
 */
final class FailedCalls {

    private static final Logger LOG = Logger.getLogger(QueueWorker.class);
    private static final long REMINDER_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final String queue;
    private final Set<Integer> failingShards = new HashSet<>();
    private int failures;
    private long firstFailureNanos;
    private long lastWarningNanos;

    FailedCalls(String queue) {
        this.queue = queue;
    }

    /** A call of {@code shard} failed; {@code message} says which and what happens next. */
    void failed(int shard, Throwable cause, String message) {
        long now = System.nanoTime();
        failures++;
        if (failingShards.isEmpty()) {
            failingShards.add(shard);
            firstFailureNanos = now;
            lastWarningNanos = now;
            LOG.warnf(cause, "%s (until a call of each failing shard succeeds, further failures of queue %s are logged"
                    + " at DEBUG, with a WARN a minute)", message, queue);
            return;
        }
        failingShards.add(shard);
        if (now - lastWarningNanos >= REMINDER_NANOS) {
            lastWarningNanos = now;
            LOG.warnf("%s: %s (%d failed calls of queue %s over %d s)", message, cause.getMessage(), failures, queue,
                    TimeUnit.NANOSECONDS.toSeconds(now - firstFailureNanos));
        } else {
            LOG.debugf(cause, "%s", message);
        }
    }

    /** A call of {@code shard} succeeded: ends the outage once no shard is failing. */
    void succeeded(int shard) {
        if (failingShards.remove(shard) && failingShards.isEmpty()) {
            LOG.infof("Redis answers the calls of queue %s again, after %d failed calls over %d ms", queue, failures,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstFailureNanos));
            failures = 0;
        }
    }
}
