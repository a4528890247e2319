package io.quarkiverse.delayedjobs.runtime.worker;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;

/**
 * One delivery of a claimed job: the {@link JobContext} of its handler, and whether it started, was handed back, or
 * lapsed (its lease ended before its handler could start).
 */
final class Delivery implements JobContext {

    private static final int CLAIMED = 0;
    private static final int STARTED = 1;
    private static final int HANDED_BACK = 2;
    private static final int LAPSED = 3;

    private final String queue;
    private final int shard;
    private final Claimed job;
    private final AtomicInteger state = new AtomicInteger(CLAIMED);
    private volatile boolean leaseLost;
    private volatile boolean endedByProducer;
    private volatile long startedNanos;
    /**
     * The earliest its lease may end in Redis ({@link System#nanoTime()}), by the claim or the renewal answered last.
     */
    private volatile long leaseEndNanos;
    /** Set once the stop gave up on its handler: no renewal comes any more, and its lease lapses unseen. */
    private volatile boolean unrenewed;
    private Long rearmAt;

    Delivery(String queue, int shard, Claimed job, long leaseEndNanos) {
        this.queue = queue;
        this.shard = shard;
        this.job = job;
        this.leaseEndNanos = leaseEndNanos;
    }

    int shard() {
        return shard;
    }

    String token() {
        return job.token();
    }

    Claimed job() {
        return job;
    }

    /**
     * Called on the handler's thread right before it runs: false when the job was handed back meanwhile, or when its
     * lease ended or was found lost since it was handed to the handler's thread ({@link #lapsed()}; this process was
     * paused, its renewals went unanswered, or a renewal found the claim gone), so that another worker may have
     * claimed and run it.
     */
    boolean start() {
        if ((leaseLost || leaseEndedBy(System.nanoTime())) && state.compareAndSet(CLAIMED, LAPSED)) {
            leaseLost = true;
            return false;
        }
        if (state.compareAndSet(CLAIMED, STARTED)) {
            startedNanos = System.nanoTime();
            return true;
        }
        return false;
    }

    /** How long the handler has been running, or ran if it finished now (ms). */
    double runningMs() {
        return (System.nanoTime() - startedNanos) / 1e6;
    }

    /** Called at shutdown: true when the handler had not started, and now never will. */
    boolean handBack() {
        return state.compareAndSet(CLAIMED, HANDED_BACK);
    }

    /** Whether its lease ended before its handler started: it never starts, and whoever dispatched it hands it back. */
    boolean lapsed() {
        return state.get() == LAPSED;
    }

    /** The next occurrence to arm when this delivery of a recurring job ends; null for a plain job or a last one. */
    Long rearmAt() {
        return rearmAt;
    }

    void rearmAt(Long nextMs) {
        rearmAt = nextMs;
    }

    void loseLease() {
        leaseLost = true;
    }

    /**
     * A producer cancelled or replaced the job while its handler ran (the scripts tell at once on the wake channel):
     * the lease is lost, and nothing of this delivery is to be written.
     */
    void endByProducer() {
        endedByProducer = true;
        leaseLost = true;
    }

    boolean endedByProducer() {
        return endedByProducer;
    }

    /** No renewal is sent any more ({@code shutdown-timeout} passed): {@link #leaseLost()} tells once it ended. */
    void stopRenewing() {
        unrenewed = true;
    }

    /**
     * A renewal succeeded: the lease lasts at least until {@code leaseEndNanos} ({@link System#nanoTime()}). Not the
     * later of the two ends: a renewal sets the lease from its own time, which may end before a claim-ahead's lease.
     */
    void renewed(long leaseEndNanos) {
        this.leaseEndNanos = leaseEndNanos;
    }

    /** Whether the lease has ended by {@code nowNanos} with no renewal known to have reached Redis. */
    boolean leaseEndedBy(long nowNanos) {
        return nowNanos - leaseEndNanos > 0;
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public String id() {
        return job.id();
    }

    @Override
    public int attempt() {
        return job.attempt();
    }

    @Override
    public Instant dueAt() {
        return Instant.ofEpochMilli(job.dueMs());
    }

    @Override
    public String deliveryId() {
        return queue + "/" + shard + "/" + job.token();
    }

    @Override
    public boolean leaseLost() {
        // With no renewal timer to notice it, the handler asking is what finds the lease ended.
        if (!leaseLost && unrenewed && leaseEndedBy(System.nanoTime())) {
            leaseLost = true;
        }
        return leaseLost;
    }

    @Override
    public String toString() {
        return "job " + job.id() + " of queue " + queue + " (attempt " + job.attempt() + ")";
    }
}
