package io.quarkiverse.delayedjobs.runtime.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClockReading;

/**
 * A producer turns a delay into a due time by the Redis clock at its schedule call, from the readings of that clock
 * its calls' answers carry: never before the delay passed by that clock, and by the script again whenever a reading
 * cannot be trusted. Times here are made up: nanos of this JVM's monotonic clock, µs of the Redis clock, ms of this
 * host's wall clock.
 */
class ShardClockTest {

    static final long T0 = 1_000_000_000_000L; // nanos
    static final long REDIS0 = 1_800_000_000_000_000L; // µs
    static final long WALL0 = 1_800_000_000_000L; // ms

    /** A call sent at {@code sent} (nanos after T0) and back after {@code roundTrip} nanos; Redis read its clock halfway. */
    static ClockReading reading(long sent, long roundTrip, long redisOffsetMicros) {
        return new ClockReading(REDIS0 + (sent + roundTrip / 2) / 1000 + redisOffsetMicros, T0 + sent,
                T0 + sent + roundTrip);
    }

    static long wallAt(long nanos) {
        return WALL0 + nanos / 1_000_000;
    }

    @Test
    void aDelayCountsFromTheCallByAnUpperBoundOfTheRedisClock() {
        ShardClock clock = new ShardClock();
        clock.offer(reading(0, 200_000, 0), wallAt(0), wallAt(200_000));
        // Scheduled 10 ms after the reading's call, sent 50 ms later (a linger): due 1 s after the call.
        long scheduled = T0 + 10_000_000;
        long due = ShardClock.dueMs(clock.serving(T0 + 60_000_000, wallAt(60_000_000)), 1000, scheduled);
        long redisAtCall = REDIS0 + 10_000; // µs
        assertTrue(due * 1000 >= redisAtCall + 1_000_000, "early");
        assertTrue(due * 1000 <= redisAtCall + 1_000_000 + 1_200, "late by more than the round trip and the ms begun");
    }

    @Test
    void theTightestQuickReadingIsKept() {
        ShardClock clock = new ShardClock();
        clock.offer(reading(0, 1_800_000, 0), wallAt(0), wallAt(1_800_000)); // quick enough, but a loose bound
        clock.offer(reading(10_000_000, 100_000, 0), wallAt(10_000_000), wallAt(10_100_000)); // tighter
        clock.offer(reading(20_000_000, 1_500_000, 0), wallAt(20_000_000), wallAt(21_500_000)); // looser again: not kept
        clock.offer(reading(30_000_000, 3_000_000, 0), wallAt(30_000_000), wallAt(33_000_000)); // too slow: not kept
        long due = ShardClock.dueMs(clock.serving(T0 + 40_000_000, wallAt(40_000_000)), 1000, T0 + 40_000_000);
        // The tight reading's bound: Redis read 50 µs after its call was sent, so the bound is 50 µs (+1) late.
        assertEquals(-Math.floorDiv(-(REDIS0 + 40_000 + 50 + 1 + 1_000_000), 1000), due);
    }

    @Test
    void aReadingALaterOneShowsWrongIsGivenUp() {
        ShardClock clock = new ShardClock();
        clock.offer(reading(0, 200_000, 0), wallAt(0), wallAt(200_000));
        // 0.1 s later the Redis clock has stepped 3 s forward (or another server answers after a failover): the
        // new reading's bound is looser, but the old bound is below what the server answered.
        clock.offer(reading(100_000_000, 200_000, 3_000_000), wallAt(100_000_000), wallAt(100_200_000));
        long scheduled = T0 + 100_300_000;
        long due = ShardClock.dueMs(clock.serving(scheduled, wallAt(100_300_000)), 1000, scheduled);
        long redisAtCall = REDIS0 + 100_300 + 3_000_000;
        assertTrue(due * 1000 >= redisAtCall + 1_000_000,
                "due " + (redisAtCall + 1_000_000 - due * 1000) + " µs before its delay passed by the Redis clock");
    }

    @Test
    void noReadingServesAfterItsLifeOrWhenTheWallClockMovedApartOrForNoDelay() {
        ShardClock clock = new ShardClock();
        assertEquals(-1, ShardClock.dueMs(clock.serving(T0, WALL0), 1000, T0), "no reading yet");
        clock.offer(reading(0, 200_000, 0), wallAt(0), wallAt(200_000));
        assertTrue(ShardClock.dueMs(clock.serving(T0 + 240_000_000, wallAt(240_000_000)), 1000, T0 + 240_000_000) > 0);
        assertEquals(-1, ShardClock.dueMs(clock.serving(T0 + 1_000_000, wallAt(1_000_000)), 0, T0 + 1_000_000), "no delay");
        assertEquals(-1, ShardClock.dueMs(clock.serving(T0 + 260_000_000, wallAt(260_000_000)), 1000, T0 + 260_000_000),
                "past its life");
        // The host slept 60 s, which its monotonic clock did not count: the wall clock tells.
        assertEquals(-1, ShardClock.dueMs(clock.serving(T0 + 1_000_000, wallAt(1_000_000) + 60_000), 1000, T0 + 1_000_000),
                "after a sleep of the host");
    }

    @Test
    void aReadingWhoseCallTheHostSleptThroughIsNotKept() {
        ShardClock clock = new ShardClock();
        // Redis read its clock at once, then the host slept 60 s before the answer was read: the monotonic clock
        // counts a quick round trip, the wall clock a minute.
        ClockReading slept = new ClockReading(REDIS0 + 100, T0, T0 + 200_000);
        clock.offer(slept, WALL0, WALL0 + 60_000);
        long scheduled = T0 + 300_000;
        assertEquals(-1, ShardClock.dueMs(clock.serving(scheduled, WALL0 + 60_000), 60_000, scheduled));
    }

    @Test
    void aSlowAnswerThatShowsTheKeptReadingWrongStillDropsIt() {
        ShardClock clock = new ShardClock();
        clock.offer(reading(0, 200_000, 0), wallAt(0), wallAt(200_000));
        // A failover to a server whose clock is 3 s ahead, answered in 3 ms: too slow to keep, but it shows the kept
        // bound 3 s below the clock that now answers.
        clock.offer(reading(100_000_000, 3_000_000, 3_000_000), wallAt(100_000_000), wallAt(103_000_000));
        long scheduled = T0 + 103_100_000;
        assertEquals(-1, ShardClock.dueMs(clock.serving(scheduled, wallAt(103_100_000)), 1000, scheduled));
    }
}
