package io.quarkiverse.delayedjobs.runtime.worker;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * Runs the jobs of a blocking handler on the worker pool with as few thread hand-offs as the handler's speed allows.
 * A runner is a worker-pool task that runs jobs one after the other until none is left. The caller says how many
 * runners it wants: one per job for slow handlers (as a task per job would), a few for quick ones, which then do not
 * wake a worker thread per job. When jobs wait and no runner took one for {@value #STALL_MS} ms (a quick handler
 * met a slow job), another runner starts, up to the maximum: a slow job never holds up the others for long.
 */
final class BlockingRunners {

    /** A runner hands its thread back after this long, so that a steady stream never looks like a blocked thread. */
    private static final long SLICE_NANOS = 20_000_000;

    private static final long STALL_MS = 1;

    private final Vertx vertx;
    private final Context context;
    private final int max;
    private final long stallMs;
    private final AtomicBoolean stallCheckArmed = new AtomicBoolean();
    private volatile long lastTakeNanos;
    private final Queue<Runnable> jobs = new ConcurrentLinkedQueue<>();
    private final AtomicInteger runners = new AtomicInteger();

    BlockingRunners(Vertx vertx, Context context, int max) {
        this(vertx, context, max, STALL_MS);
    }

    /** With another stall time: tests that count threads must not depend on how fast this machine starts one. */
    BlockingRunners(Vertx vertx, Context context, int max, long stallMs) {
        this.vertx = vertx;
        this.context = context;
        this.max = max;
        this.stallMs = stallMs;
    }

    /** Hands a job over, and starts a runner when fewer than {@code wanted} (at most the maximum) are running. */
    void submit(Runnable job, int wanted) {
        jobs.add(job);
        if (countRunner(Math.max(1, Math.min(max, wanted)))) {
            start();
        } else {
            armStallCheck();
        }
    }

    /** Counts one more runner if fewer than {@code limit} run; the caller then starts it, or goes on running. */
    private boolean countRunner(int limit) {
        for (int n = runners.get(); n < limit; n = runners.get()) {
            if (runners.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    private void armStallCheck() {
        if (stallCheckArmed.compareAndSet(false, true)) {
            vertx.setTimer(stallMs, id -> checkStall());
        }
    }

    private void checkStall() {
        stallCheckArmed.set(false);
        if (jobs.isEmpty()) {
            return;
        }
        if (System.nanoTime() - lastTakeNanos > stallMs * 1_000_000 && countRunner(max)) {
            start();
        }
        armStallCheck();
    }

    private void start() {
        context.executeBlocking(() -> {
            run();
            return null;
        }, false);
    }

    private void run() {
        long sliceEnd = System.nanoTime() + SLICE_NANOS;
        for (;;) {
            Runnable job = jobs.poll();
            if (job == null) {
                runners.decrementAndGet();
                // A job handed over after the poll saw no need for a new runner: take it unless others run.
                if (jobs.isEmpty() || !countRunner(max)) {
                    return;
                }
                continue;
            }
            lastTakeNanos = System.nanoTime();
            job.run();
            if (System.nanoTime() - sliceEnd > 0) {
                start();
                return;
            }
        }
    }
}
