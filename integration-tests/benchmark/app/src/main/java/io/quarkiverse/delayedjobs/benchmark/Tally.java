package io.quarkiverse.delayedjobs.benchmark;

import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.inject.Singleton;

import io.quarkiverse.delayedjobs.JobContext;

/**
 * What the handler saw: how many jobs started, and for the lateness workload how late each one started.
 */
@Singleton
public class Tally {

    private final AtomicLong started = new AtomicLong();
    private final AtomicInteger recorded = new AtomicInteger();
    private volatile long[] latenessMicros = new long[0];

    /** Starts counting afresh; lateness is kept for at most {@code latenessSlots} jobs. */
    public void reset(int latenessSlots) {
        latenessMicros = new long[latenessSlots];
        recorded.set(0);
        started.set(0);
    }

    void started(JobContext context) {
        long[] slots = latenessMicros;
        if (slots.length > 0) {
            Instant now = Instant.now();
            long nowMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
            int i = recorded.getAndIncrement();
            if (i < slots.length) {
                slots[i] = nowMicros - context.dueAt().toEpochMilli() * 1_000L;
            }
        }
        started.incrementAndGet();
    }

    public long started() {
        return started.get();
    }

    /** The lateness recorded so far, sorted, in microseconds. */
    public long[] sortedLateness() {
        long[] copy = Arrays.copyOf(latenessMicros, Math.min(recorded.get(), latenessMicros.length));
        Arrays.sort(copy);
        return copy;
    }
}
