package io.quarkiverse.delayedjobs.runtime.worker;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.jboss.logging.Logger;

/**
 * Logs the deliveries that lost their lease. A Redis that stops answering for longer than the lease (a pause, a slow
 * fork, a failover) loses the leases of every job an instance runs or holds at once, and a WARN per delivery wrote a
 * line per job: a pressure trial's one {@code DEBUG SLEEP} wrote 1,000. So the first is a WARN, those of the next
 * minute are DEBUG, and the first after that minute is a WARN again that counts them. The queue workers of an instance
 * share one. Metrics and events still count every delivery.
 */
final class LostLeases {

    private static final long QUIET_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Logger log;
    private final LongSupplier nanoTime;
    private boolean warned;
    private long lastWarningNanos;
    private int sinceWarning;

    /** {@code nanoTime}: {@link System#nanoTime()}, or a test's clock. */
    LostLeases(Logger log, LongSupplier nanoTime) {
        this.log = log;
        this.nanoTime = nanoTime;
    }

    /** {@code message} names the delivery and says what became of it. */
    synchronized void lost(String message) {
        long now = nanoTime.getAsLong();
        if (warned && now - lastWarningNanos < QUIET_NANOS) {
            sinceWarning++;
            log.debug(message);
            return;
        }
        if (sinceWarning == 0) {
            log.warnf("%s (further lost leases within a minute are logged at DEBUG)", message);
        } else {
            log.warnf("%s (and %d more lost leases since the last such warning, logged at DEBUG)", message,
                    sinceWarning);
        }
        warned = true;
        lastWarningNanos = now;
        sinceWarning = 0;
    }
}
