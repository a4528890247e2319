package io.quarkiverse.delayedjobs.runtime.worker;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.runtime.Causes;

/**
 * Logs failed Redis calls by outage. While Redis is down or loading, every shard's claim, every batch of acks, every
 * renewal and the wake subscription fail each second, and a warning each wrote thousands of lines in an outage of
 * minutes. So: the first failure at WARN with its cause, a WARN a minute while calls keep failing, the others at DEBUG;
 * and once every part (a queue's shard) that failed has had a call succeed, one INFO. A part that keeps failing (a bad
 * key) keeps the outage open, with its WARN a minute.
 */
final class FailedCalls {

    private static final long REMINDER_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Logger log;
    private final String calls;
    private final Set<Integer> failingParts = new HashSet<>();
    private int failures;
    private long firstFailureNanos;
    private long lastWarningNanos;

    /** {@code calls} names them in the messages, as in "the calls of queue demo". */
    FailedCalls(Logger log, String calls) {
        this.log = log;
        this.calls = calls;
    }

    /** A call of {@code part} failed; {@code message} says which and what happens next; {@code cause} may be null. */
    synchronized void failed(int part, Throwable cause, String message) {
        long now = System.nanoTime();
        failures++;
        if (failingParts.isEmpty()) {
            failingParts.add(part);
            firstFailureNanos = now;
            lastWarningNanos = now;
            log.warnf(cause, "%s (until Redis answers again, further failures of %s are logged at DEBUG, with a WARN a"
                    + " minute)", message, calls);
            return;
        }
        failingParts.add(part);
        if (now - lastWarningNanos >= REMINDER_NANOS) {
            lastWarningNanos = now;
            log.warnf("%s%s (%d failed calls of %s over %d s)", message, cause == null ? "" : ": " + Causes.message(cause),
                    failures, calls, TimeUnit.NANOSECONDS.toSeconds(now - firstFailureNanos));
        } else {
            log.debugf(cause, "%s", message);
        }
    }

    /** A call of {@code part} succeeded: ends the outage once no part is failing. */
    synchronized void succeeded(int part) {
        if (failingParts.remove(part) && failingParts.isEmpty()) {
            log.infof("Redis answers %s again, after %d failed calls over %d ms from the first", calls, failures,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstFailureNanos));
            failures = 0;
        }
    }
}
