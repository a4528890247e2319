package io.quarkiverse.delayedjobs.runtime.cron;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides, when an occurrence of a recurring job is claimed, whether to run it and which occurrence to arm next. The
 * next occurrence is armed when the delivery ends, whether it succeeded or failed, so that one schedule never has two
 * occurrences in flight and none is lost.
 */
public final class OccurrencePlanner {

    /**
     * @param run whether the handler runs for the claimed occurrence
     * @param nextMs the occurrence to arm when this delivery ends; null when the schedule has ended
     * @param givenUp why the claimed occurrence is given up without running, or null
     */
    public record Plan(boolean run, Long nextMs, String givenUp) {
    }

    /**
     * The most parsed schedules kept. Applications with a schedule per customer (a time and zone of their own) may
     * store any number of distinct ones; parsing one again costs far less than a claim.
     */
    static final int MAX_CACHED_SCHEDULES = 1024;

    private final int catchUpLimit;
    private final Map<String, CronSchedule> schedules = new ConcurrentHashMap<>();

    /** {@code catchUpLimit}: at least 1, as the configuration is checked. */
    public OccurrencePlanner(int catchUpLimit) {
        this.catchUpLimit = catchUpLimit;
    }

    /**
     * @param encoded the schedule as stored in the {@code cron} hash
     * @param dueMs the claimed occurrence
     * @param attempt the attempt this delivery is
     * @param maxAttempts the attempts an occurrence gets
     * @param nowMs the Redis time of the claim
     */
    public Plan plan(String encoded, long dueMs, int attempt, int maxAttempts, long nowMs) {
        CronSchedule schedule = schedules.get(encoded);
        if (schedule == null) {
            if (schedules.size() >= MAX_CACHED_SCHEDULES) {
                schedules.clear(); // simpler than least-recently-used, and as good for the few schedules most use
            }
            schedule = CronSchedule.decode(encoded);
            schedules.put(encoded, schedule);
        }
        Instant due = Instant.ofEpochMilli(dueMs);
        Instant now = Instant.ofEpochMilli(nowMs);
        if (attempt > maxAttempts) {
            // Its workers kept dying: give this occurrence up rather than the schedule.
            // The first occurrence after the one given up that has not passed: one due at this very millisecond has not.
            return new Plan(false, millis(schedule.next(now.isAfter(due) ? now.minusMillis(1) : due)),
                    "lease expired on attempt " + maxAttempts + " of " + maxAttempts + "; occurrence given up");
        }
        Optional<Instant> following = schedule.next(due);
        if (following.isEmpty() || following.get().isAfter(now)) {
            return new Plan(true, millis(following), null);
        }
        // Missed: the following occurrence has come too. One due at this very millisecond has not passed: it is armed.
        Optional<Instant> notPassed = schedule.next(now.minusMillis(1));
        return switch (schedule.misfire()) {
            case FIRE_ONCE -> new Plan(true, millis(notPassed), null);
            case SKIP -> new Plan(false, millis(notPassed), null);
            case CATCH_UP -> {
                Instant oldestKept = oldestOfRecent(schedule, now);
                yield due.isBefore(oldestKept) ? new Plan(false, oldestKept.toEpochMilli(), null)
                        : new Plan(true, millis(following), null);
            }
        };
    }

    /** The parsed schedules kept now. */
    int cachedSchedules() {
        return schedules.size();
    }

    private static Long millis(Optional<Instant> instant) {
        return instant.map(Instant::toEpochMilli).orElse(null);
    }

    /** The oldest of the {@code catchUpLimit} most recent occurrences at or before {@code now}. */
    private Instant oldestOfRecent(CronSchedule schedule, Instant now) {
        Instant oldest = now;
        Optional<Instant> previous = schedule.previous(now);
        for (int i = 0; i < catchUpLimit && previous.isPresent(); i++) {
            oldest = previous.get();
            if (i + 1 < catchUpLimit) {
                previous = schedule.previous(oldest.minusNanos(1));
            }
        }
        return oldest;
    }
}
