package io.quarkiverse.delayedjobs.benchmark;

import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

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
    /** The due time (ms) of the job of each lateness slot: when in the phase the latest ones were due. */
    private volatile long[] dueMs = new long[0];

    /** Starts counting afresh; lateness is kept for at most {@code latenessSlots} jobs. */
    public void reset(int latenessSlots) {
        dueMs = new long[latenessSlots];
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
                dueMs[i] = context.dueAt().toEpochMilli();
                slots[i] = nowMicros - dueMs[i] * 1_000L;
            }
        }
        started.incrementAndGet();
    }

    public long started() {
        return started.get();
    }

    /**
     * The {@code n} latest starts: lateness in ms and when the job was due, in seconds after {@code sinceMs}, as
     * text ({@code "12.3 ms at 4.56 s"}), latest first.
     */
    public List<String> latest(int n, long sinceMs) {
        int count = Math.min(recorded.get(), latenessMicros.length);
        return IntStream.range(0, count).boxed()
                .sorted(Comparator.comparingLong((Integer i) -> latenessMicros[i]).reversed())
                .limit(n)
                .map(i -> String.format(Locale.ROOT, "%.1f ms at %.2f s", latenessMicros[i] / 1e3,
                        (dueMs[i] - sinceMs) / 1e3))
                .toList();
    }

    /** The lateness recorded so far, sorted, in microseconds. */
    public long[] sortedLateness() {
        long[] copy = Arrays.copyOf(latenessMicros, Math.min(recorded.get(), latenessMicros.length));
        Arrays.sort(copy);
        return copy;
    }
}
