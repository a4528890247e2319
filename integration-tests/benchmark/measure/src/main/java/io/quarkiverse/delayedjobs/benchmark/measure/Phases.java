package io.quarkiverse.delayedjobs.benchmark.measure;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/** Bounded waits and a bounded producer loop, shared by the Java runners: every wait has a deadline. */
public final class Phases {

    /** The longest a phase, or one wait in it, may take. */
    public static final Duration PHASE_LIMIT = Duration.ofMinutes(5);
    /** How often a wait checks its condition; some conditions ask Redis, so not much oftener. */
    private static final long POLL_NANOS = 2_000_000;

    private Phases() {
    }

    /** Calls {@code op(0..count-1)} from this thread with at most {@code window} calls in flight. */
    public static void issue(int count, int window, IntFunction<CompletionStage<?>> op) {
        Semaphore permits = new Semaphore(window);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long deadline = System.nanoTime() + PHASE_LIMIT.toNanos();
        for (int i = 0; i < count; i++) {
            acquire(permits, 1, deadline);
            if (failure.get() != null) {
                break;
            }
            op.apply(i).whenComplete((ok, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                }
                permits.release();
            });
        }
        acquire(permits, window, deadline);
        if (failure.get() != null) {
            throw new IllegalStateException("A call failed: " + failure.get().getMessage(), failure.get());
        }
    }

    private static void acquire(Semaphore permits, int count, long deadline) {
        try {
            if (!permits.tryAcquire(count, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException("Calls still in flight after " + PHASE_LIMIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits until the condition holds, at most {@link #PHASE_LIMIT}. */
    public static void await(String what, BooleanSupplier condition) {
        await(what, condition, PHASE_LIMIT);
    }

    /** Waits until the condition holds, at most {@code limit}; fails naming {@code what} after that. */
    public static void await(String what, BooleanSupplier condition, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Gave up waiting for " + what + " after " + limit);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    public static void sleepUntil(long epochMillis) {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) {
            pause(Duration.ofMillis(wait));
        }
    }

    /** Sleeps for a bounded while: to let counters settle, or while another process measures this one. */
    public static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
