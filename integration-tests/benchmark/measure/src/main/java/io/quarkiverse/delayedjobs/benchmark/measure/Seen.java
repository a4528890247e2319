package io.quarkiverse.delayedjobs.benchmark.measure;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The jobs of a phase that reached a handler, by their payload's sequence number (0 to {@code jobs - 1}): deliveries
 * and distinct jobs, so that a job delivered twice cannot stand in for one never delivered. Lock-free, as many handler
 * threads record at once.
 */
public final class Seen {

    private final AtomicLongArray bits;
    private final AtomicLong deliveries = new AtomicLong();
    private final AtomicLong distinct = new AtomicLong();

    public Seen(int jobs) {
        bits = new AtomicLongArray((jobs + 63) / 64);
    }

    /** Records a delivery of job {@code seq}; one outside 0 to {@code jobs - 1} counts as a delivery only. */
    public void record(long seq) {
        deliveries.incrementAndGet();
        if (seq < 0 || seq / 64 >= bits.length()) {
            return;
        }
        long bit = 1L << (seq & 63);
        if ((bits.getAndUpdate((int) (seq / 64), word -> word | bit) & bit) == 0) {
            distinct.incrementAndGet();
        }
    }

    public long deliveries() {
        return deliveries.get();
    }

    public long distinct() {
        return distinct.get();
    }

    /** Deliveries beyond the first of each job. */
    public long duplicates() {
        return deliveries.get() - distinct.get();
    }
}
