package io.quarkiverse.delayedjobs.runtime.redis;

import java.util.concurrent.TimeUnit;

import io.vertx.core.Context;

/** Counts the calls sent and not yet ended, so that a close can wait for them to be answered. */
final class CallsInFlight {

    private int count;

    synchronized void started() {
        count++;
    }

    synchronized void ended() {
        if (--count == 0) {
            notifyAll();
        }
    }

    /** Waits until no call is in flight, for at most {@code timeoutMs}; not on an event loop, which must not block. */
    synchronized void awaitNone(long timeoutMs) {
        if (Context.isOnEventLoopThread()) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        long left;
        while (count > 0 && (left = deadline - System.nanoTime()) > 0) {
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
