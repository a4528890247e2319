package io.quarkiverse.delayedjobs.runtime.worker;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.vertx.core.Context;

/**
 * The timers that must fire on time: the one that wakes a worker to claim when a shard's earliest job is due, and
 * those that start the jobs claimed ahead at their due time. They fire within a fraction of a millisecond.
 * <p>
 * A Vert.x timer is not that precise on the default (NIO) transport: Netty rounds the event loop's sleep up to a
 * whole millisecond, so the timer fires half a millisecond late on average and up to a whole one. A thread parked on
 * its own wakes within tens of µs, then hands the action to the worker's event loop. One daemon thread serves every
 * queue of the engine; it starts with the first timer.
 */
final class DueTimer {

    private final ScheduledThreadPoolExecutor executor;

    DueTimer() {
        executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "delayed-jobs-due-timer");
            thread.setDaemon(true);
            return thread;
        });
        // A revoked job's timer leaves the queue at once, not at its due time: a queue may revoke many.
        executor.setRemoveOnCancelPolicy(true);
    }

    /** Runs {@code action} on {@code context} once {@code delayMicros} went by; cancel the result to drop it. */
    ScheduledFuture<?> schedule(Context context, long delayMicros, Runnable action) {
        return executor.schedule(() -> context.runOnContext(v -> action.run()), delayMicros, TimeUnit.MICROSECONDS);
    }

    /** Drops the timers still pending and ends the thread; the workers cancelled theirs when they stopped. */
    void stop() {
        executor.shutdownNow();
    }
}
