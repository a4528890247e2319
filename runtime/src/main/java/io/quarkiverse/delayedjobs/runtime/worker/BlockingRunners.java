package io.quarkiverse.delayedjobs.runtime.worker;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import io.vertx.core.Context;

/**
 * Runs the jobs of a blocking handler on the worker pool with as few thread hand-offs as the handler's speed allows.
 * A runner is a worker-pool task that runs jobs one after the other until none is left. The caller says how many
 * runners it wants: one per job for slow handlers (as a task per job would), a few for quick ones, which then do not
 * wake a worker thread per job.
 */
final class BlockingRunners {

    /** A runner hands its thread back after this long, so that a steady stream never looks like a blocked thread. */
    private static final long SLICE_NANOS = 20_000_000;

    private final Context context;
    private final int max;
    private final Queue<Runnable> jobs = new ConcurrentLinkedQueue<>();
    private final AtomicInteger runners = new AtomicInteger();

    BlockingRunners(Context context, int max) {
        this.context = context;
        this.max = max;
    }

    /** Hands a job over, and starts a runner when fewer than {@code wanted} (at most the maximum) are running. */
    void submit(Runnable job, int wanted) {
        jobs.add(job);
        int limit = Math.max(1, Math.min(max, wanted));
        for (int n = runners.get(); n < limit; n = runners.get()) {
            if (runners.compareAndSet(n, n + 1)) {
                start();
                return;
            }
        }
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
                if (jobs.isEmpty() || !reenter()) {
                    return;
                }
                continue;
            }
            job.run();
            if (System.nanoTime() - sliceEnd > 0) {
                start();
                return;
            }
        }
    }

    private boolean reenter() {
        for (int n = runners.get(); n < max; n = runners.get()) {
            if (runners.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }
}
