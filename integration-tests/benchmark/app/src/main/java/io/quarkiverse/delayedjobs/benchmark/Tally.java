package io.quarkiverse.delayedjobs.benchmark;

import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import jakarta.inject.Singleton;

import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.benchmark.measure.Seen;

/**
 * What the handler saw: how many deliveries started, of how many distinct jobs (by their payload's sequence number),
 * and for the lateness workload how late each one started after the due time its producer asked for (as the peers'
 * runners measure it: this extension's stored due time is taken when Redis runs the script, a little later).
 */
@Singleton
public class Tally {

    private volatile Seen seen = new Seen(0);
    private final AtomicInteger recorded = new AtomicInteger();
    private volatile long[] latenessMicros = new long[0];
    /** The due time (ms) of the job of each lateness slot: when in the phase the latest ones were due. */
    private volatile long[] dueMs = new long[0];
    /**
     * Per lateness slot, the due time this extension stored less the one the producer asked for (ms): the delay is
     * counted from when Redis runs the script, in whole ms rounded up (never early), so it comes out a little later.
     */
    private volatile long[] dueShiftMs = new long[0];

    /**
     * Starts counting afresh for jobs numbered 0 to {@code jobs - 1}; the lateness of each is kept when
     * {@code lateness}.
     */
    public void reset(int jobs, boolean lateness) {
        dueMs = new long[lateness ? jobs : 0];
        dueShiftMs = new long[lateness ? jobs : 0];
        latenessMicros = new long[lateness ? jobs : 0];
        recorded.set(0);
        seen = new Seen(jobs);
    }

    void started(BenchPayload payload, JobContext context) {
        long[] slots = latenessMicros;
        if (slots.length > 0) {
            Instant now = Instant.now();
            long nowMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
            int i = recorded.getAndIncrement();
            if (i < slots.length) {
                dueMs[i] = payload.due();
                slots[i] = nowMicros - dueMs[i] * 1_000L;
                dueShiftMs[i] = context.dueAt().toEpochMilli() - payload.due();
            }
        }
        seen.record(payload.seq());
    }

    /** Distinct jobs started, of those numbered below the count given to {@link #reset}. */
    public long distinct() {
        return seen.distinct();
    }

    /** Deliveries beyond the first of each job. */
    public long duplicates() {
        return seen.duplicates();
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

    /** The due shifts recorded so far, sorted, in ms (see {@link #dueShiftMs}). */
    public long[] sortedDueShift() {
        long[] copy = Arrays.copyOf(dueShiftMs, Math.min(recorded.get(), dueShiftMs.length));
        Arrays.sort(copy);
        return copy;
    }

    /** The lateness recorded so far, sorted, in microseconds. */
    public long[] sortedLateness() {
        long[] copy = Arrays.copyOf(latenessMicros, Math.min(recorded.get(), latenessMicros.length));
        Arrays.sort(copy);
        return copy;
    }
}
