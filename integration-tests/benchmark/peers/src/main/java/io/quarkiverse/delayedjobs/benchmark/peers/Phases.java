package io.quarkiverse.delayedjobs.benchmark.peers;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/** Bounded waits and a bounded producer loop, shared by the Java runners. */
final class Phases {

    static final Duration PHASE_LIMIT = Duration.ofMinutes(5);

    private Phases() {
    }

    /** Calls {@code op(0..count-1)} from this thread with at most {@code window} calls in flight. */
    static void issue(int count, int window, IntFunction<CompletionStage<?>> op) {
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

    static void await(String what, BooleanSupplier condition, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Gave up waiting for " + what + " after " + limit);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    static void sleepUntil(long epochMillis) {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) {
            pause(Duration.ofMillis(wait));
        }
    }

    static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /** Deletes every key matching the pattern, in bounded SCAN rounds. */
    @SuppressWarnings("unchecked")
    static long deleteKeys(Resp redis, String pattern) {
        long deleted = 0;
        String cursor = "0";
        for (int round = 0; round < 1_000_000; round++) {
            List<Object> page = (List<Object>) redis.call("SCAN", cursor, "MATCH", pattern, "COUNT", 1000);
            cursor = (String) page.get(0);
            List<Object> keys = (List<Object>) page.get(1);
            if (!keys.isEmpty()) {
                Object[] unlink = new Object[keys.size() + 1];
                unlink[0] = "UNLINK";
                for (int i = 0; i < keys.size(); i++) {
                    unlink[i + 1] = keys.get(i);
                }
                deleted += (Long) redis.call(unlink);
            }
            if ("0".equals(cursor)) {
                return deleted;
            }
        }
        throw new IllegalStateException("SCAN did not finish over " + pattern);
    }
}
