package io.quarkiverse.delayedjobs.runtime.worker;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.runtime.Causes;

/**
 * Logs failed Redis calls by outage. While Redis is down or loading, every shard's claim, every batch of acks, every
 * renewal and the wake subscription fail each second, and a warning each wrote thousands of lines in an outage of
 * minutes. So: the first failure at WARN with its cause's message (its stack trace at DEBUG: a pressure trial's
 * instance of 61 queues wrote 3,000 lines for a one-second restart of Redis), a WARN a minute while calls keep
 * failing, the others at DEBUG; and once every part (a queue's shard) that failed has had a call succeed, one INFO. A
 * part that keeps failing (a bad key) keeps the outage open, with its WARN a minute. The queue workers of an instance
 * share one: an outage of Redis is one for all of them.
 */
final class FailedCalls {

    private static final long REMINDER_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Logger log;
    private final String calls;
    private final Set<Object> failingParts = new HashSet<>();
    /** Whether some part is failing: a call that succeeds outside an outage, as most do, takes no lock. */
    private volatile boolean outage;
    private int failures;
    private long firstFailureNanos;
    private long lastWarningNanos;

    /** {@code calls} names them in the messages, as in "the calls of the queue workers". */
    FailedCalls(Logger log, String calls) {
        this.log = log;
        this.calls = calls;
    }

    /**
     * A call of {@code part} (any key, equal for the calls of one shard) failed; {@code message} says which and what
     * happens next; {@code cause} may be null.
     */
    synchronized void failed(Object part, Throwable cause, String message) {
        long now = System.nanoTime();
        failures++;
        String because = cause == null ? "" : ": " + Causes.message(cause);
        if (failingParts.isEmpty()) {
            failingParts.add(part);
            outage = true;
            firstFailureNanos = now;
            lastWarningNanos = now;
            log.warnf("%s%s (until Redis answers again, further failures of %s are logged at DEBUG, with a WARN a"
                    + " minute)", message, because, calls);
            log.debugf(cause, "%s", message);
            return;
        }
        failingParts.add(part);
        if (now - lastWarningNanos >= REMINDER_NANOS) {
            lastWarningNanos = now;
            log.warnf("%s%s (%d failed calls of %s over %d s)", message, because, failures, calls,
                    TimeUnit.NANOSECONDS.toSeconds(now - firstFailureNanos));
        } else {
            log.debugf(cause, "%s", message);
        }
    }

    /** A call of {@code part} succeeded: ends the outage once no part is failing. */
    void succeeded(Object part) {
        if (!outage) {
            return;
        }
        synchronized (this) {
            if (failingParts.remove(part) && failingParts.isEmpty()) {
                outage = false;
                log.infof("Redis answers %s again, after %d failed calls over %d ms from the first", calls, failures,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstFailureNanos));
                failures = 0;
            }
        }
    }
}
