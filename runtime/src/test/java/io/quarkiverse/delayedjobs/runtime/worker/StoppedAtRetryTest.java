package io.quarkiverse.delayedjobs.runtime.worker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClaimBatch;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClaimRequest;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClockReading;

/**
 * A claim that could have taken the next pending job ahead of its due time, and did not, stopped at a retry: its shard
 * is then claimed only from that job's due time. One whose jobs due at once filled it never looked ahead, and tells
 * nothing about the next job.
 */
class StoppedAtRetryTest {

    static final long NOW_MS = 1_000_000;
    /** A claim of up to 4 jobs, with up to 2 of them ahead within 100 ms. */
    static final ClaimRequest REQUEST = new ClaimRequest(0, 4, 100, 2, List.of());

    @Test
    void aClaimWithRoomAheadThatLeftAJobInReachStoppedAtARetry() {
        assertTrue(QueueWorker.stoppedAtRetry(REQUEST, batch(2, 0, NOW_MS + 50)));
    }

    @Test
    void aClaimFilledByJobsDueAtOnceDidNotLookAhead() {
        assertFalse(QueueWorker.stoppedAtRetry(REQUEST, batch(4, 0, NOW_MS + 50)));
    }

    @Test
    void aClaimThatTookAsManyAheadAsItMayHadNoRoomLeft() {
        assertFalse(QueueWorker.stoppedAtRetry(REQUEST, batch(1, 2, NOW_MS + 50)));
    }

    @Test
    void aNextJobBeyondTheReachOrDueAlreadyTellsNothing() {
        assertFalse(QueueWorker.stoppedAtRetry(REQUEST, batch(1, 0, NOW_MS + 150)));
        assertFalse(QueueWorker.stoppedAtRetry(REQUEST, batch(1, 0, NOW_MS)));
        assertFalse(QueueWorker.stoppedAtRetry(REQUEST, batch(1, 0, -1)));
    }

    @Test
    void aClaimThatDoesNotClaimAheadNeverStops() {
        assertFalse(QueueWorker.stoppedAtRetry(new ClaimRequest(0, 4, 0, 0, List.of()), batch(1, 0, NOW_MS + 50)));
    }

    /**
     * A claim of jobs ahead only (limit 0: all handlers busy, or a shard claimed along with a due one) reads the shard
     * from its head up to the horizon: it looked ahead, and stopped at a retry.
     */
    @Test
    void aClaimOfJobsAheadOnlyThatLeftAJobInReachStoppedAtARetry() {
        assertTrue(QueueWorker.stoppedAtRetry(new ClaimRequest(0, 0, 100, 2, List.of()), batch(0, 0, NOW_MS + 50)));
    }

    /** A batch read at {@link #NOW_MS} of {@code dueNow} jobs due at once and {@code ahead} due later. */
    private static ClaimBatch batch(int dueNow, int ahead, long nextMs) {
        List<Claimed> jobs = IntStream.range(0, dueNow + ahead)
                .mapToObj(i -> new Claimed("j" + i, "1." + i, 1, i < dueNow ? NOW_MS - 1 : NOW_MS + 10, new byte[0], null))
                .toList();
        return new ClaimBatch(new ClockReading(NOW_MS * 1000, 0, 0), nextMs, jobs, List.of());
    }
}
