package io.quarkiverse.delayedjobs.runtime.redis;

import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClockReading;

/**
 * What a producer knows of the Redis clock of one shard's server, from the answers of its schedule calls, each of
 * which ends with the server's {@code TIME}: it turns a delay into a due time counted from the schedule call, so that
 * a job which then waits to reach Redis (a linger, a busy connection or server) is not due later for it.
 * <p>
 * A reading bounds the Redis clock from above at any moment of this JVM: Redis read it after the call was sent, so
 * its clock reads at most the reading plus the time since then (given clocks that run at the same rate). A delay
 * added to that bound never ends before it passed by the Redis clock; it ends late by up to the round trip of the
 * reading's call. Of the quick calls' readings the one that bounds the clock most tightly is kept, for a quarter of
 * a second at most (longer than the longest linger between two calls), so that clocks running at slightly different
 * rates part by little: 0.125 ms at ntpd's fastest slew, 500 ppm. A reading is given up at once when a later answer
 * shows it wrong (the server's clock stepped forward, or another server answers after a failover), and when this
 * host's wall clock moved apart from its monotonic one since (the host slept, which the monotonic clock does not
 * count, or its clock was set): the script then measures the delays again. The concepts page lists what is left.
 */
final class ShardClock {

    /** How long a reading serves. */
    static final long LIFE_NANOS = 250_000_000L;
    /** The longest round trip of a call whose reading is kept: the bound is late by up to that much. */
    static final long MAX_ROUND_TRIP_NANOS = 2_000_000;
    /** The most this host's wall clock may move apart from its monotonic clock while a reading serves. */
    private static final long MAX_WALL_DRIFT_MS = 2;

    private ClockReading reading;
    /** This host's wall clock (ms) when the reading's answer arrived. */
    private long readingWallMs;

    /**
     * Takes the reading of a schedule call's answer, the call sent at {@code sentWallMs} of this host's wall clock and
     * answered at {@code wallMs}.
     */
    synchronized void offer(ClockReading read, long sentWallMs, long wallMs) {
        long now = read.receivedNanos();
        if (reading != null && read.redisMicros() > reading.atMostMicros(now)) {
            reading = null; // shown wrong, by a slow answer as well as by a quick one
        }
        long roundTrip = now - read.sentNanos();
        // A call during which the host slept looks quick to the monotonic clock, and its reading is old.
        if (roundTrip > MAX_ROUND_TRIP_NANOS
                || Math.abs(wallMs - sentWallMs - roundTrip / 1_000_000) > MAX_WALL_DRIFT_MS) {
            return;
        }
        if (reading == null || !serves(now, wallMs) || read.atMostMicros(now) < reading.atMostMicros(now)) {
            reading = read;
            readingWallMs = wallMs;
        }
    }

    /** The reading that serves a call sent at {@code nowNanos} and {@code nowWallMs}, or null when none does. */
    synchronized ClockReading serving(long nowNanos, long nowWallMs) {
        return reading != null && serves(nowNanos, nowWallMs) ? reading : null;
    }

    /**
     * The due time (ms) of a job with a delay of {@code delayMs} from its schedule call at {@code scheduledNanos}: by
     * the {@code serving} reading's bound at the call, rounded up to a whole ms. -1 when the script is to measure the
     * delay: no reading serves, or no delay (due at once by the Redis clock, not at the next ms the bound may reach).
     */
    static long dueMs(ClockReading serving, long delayMs, long scheduledNanos) {
        if (serving == null || delayMs == 0) {
            return -1;
        }
        return -Math.floorDiv(-(serving.atMostMicros(scheduledNanos) + delayMs * 1000), 1000);
    }

    private boolean serves(long nowNanos, long nowWallMs) {
        long monotonicMs = (nowNanos - reading.receivedNanos()) / 1_000_000;
        return nowNanos - reading.sentNanos() <= LIFE_NANOS
                && Math.abs(nowWallMs - readingWallMs - monotonicMs) <= MAX_WALL_DRIFT_MS;
    }
}
