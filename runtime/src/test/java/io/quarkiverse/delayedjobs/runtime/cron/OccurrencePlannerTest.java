package io.quarkiverse.delayedjobs.runtime.cron;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.quarkiverse.delayedjobs.runtime.cron.OccurrencePlanner.Plan;

class OccurrencePlannerTest {

    static final OccurrencePlanner planner = new OccurrencePlanner(2);
    static final long H = Instant.parse("2026-05-05T10:00:00Z").toEpochMilli();
    static final long HOUR = 3_600_000;

    static Plan plan(String policy, long dueMs, int attempt, long nowMs) {
        return planner.plan(policy + "|Z|0 * * * *", dueMs, attempt, 3, nowMs);
    }

    @Test
    void theParsedSchedulesKeptAreBounded() {
        OccurrencePlanner fresh = new OccurrencePlanner(2);
        // A schedule per customer: a minute of the day each, 3 x 1440 distinct schedules.
        for (String zone : new String[] { "Z", "Europe/Paris", "America/New_York" }) {
            for (int minute = 0; minute < 1440; minute++) {
                String encoded = "FIRE_ONCE|" + zone + "|" + minute % 60 + " " + minute / 60 + " * * *";
                assertTrue(fresh.plan(encoded, H, 1, 3, H + 5).run());
            }
        }
        assertTrue(fresh.cachedSchedules() <= OccurrencePlanner.MAX_CACHED_SCHEDULES, "" + fresh.cachedSchedules());
        assertTrue(fresh.cachedSchedules() > 0);
    }

    @Test
    void anOccurrenceOnTimeRunsAndArmsTheFollowingOne() {
        assertEquals(new Plan(true, H + HOUR, null), plan("FIRE_ONCE", H, 1, H + 5));
    }

    @Test
    void missedOccurrencesFollowTheMisfirePolicy() {
        long now = H + 30 * 60_000;
        assertEquals(new Plan(true, H + HOUR, null), plan("FIRE_ONCE", H - 3 * HOUR, 1, now));
        assertEquals(new Plan(false, H + HOUR, null), plan("SKIP", H - 3 * HOUR, 1, now));
        // CATCH_UP keeps the two most recent occurrences, H - 1h and H.
        assertEquals(new Plan(false, H - HOUR, null), plan("CATCH_UP", H - 3 * HOUR, 1, now));
        assertEquals(new Plan(true, H, null), plan("CATCH_UP", H - HOUR, 1, now));
        assertEquals(new Plan(true, H + HOUR, null), plan("CATCH_UP", H, 1, now));
    }

    @Test
    void anOccurrenceDueAtTheClaimsVeryMillisecondIsArmedNotSkipped() {
        // H - 1h claimed at exactly H: H is due now, not passed.
        assertEquals(new Plan(false, H, null), plan("SKIP", H - HOUR, 1, H));
        assertEquals(new Plan(true, H, null), plan("FIRE_ONCE", H - HOUR, 1, H));
        assertEquals(new Plan(false, H, null), plan("SKIP", H - 3 * HOUR, 1, H));
        assertEquals(new Plan(false, H, "lease expired on attempt 3 of 3; occurrence given up"),
                plan("FIRE_ONCE", H - HOUR, 4, H));
    }

    @Test
    void catchUpKeepsTheLimitAcrossAYearTheScheduleExcludes() {
        // Mondays at noon up to 2030, claimed in 2031: the limit of one keeps 2030-12-30 alone.
        OccurrencePlanner one = new OccurrencePlanner(1);
        String encoded = "CATCH_UP|Z|0 0 12 ? * MON 2026-2030";
        long now = Instant.parse("2031-01-09T00:00:00Z").toEpochMilli();
        long lastMonday = Instant.parse("2030-12-30T12:00:00Z").toEpochMilli();
        assertEquals(new Plan(false, lastMonday, null),
                one.plan(encoded, Instant.parse("2030-12-23T12:00:00Z").toEpochMilli(), 1, 3, now));
        assertEquals(new Plan(true, null, null), one.plan(encoded, lastMonday, 1, 3, now));
    }

    @Test
    void anOccurrenceWhoseLeasesKeptRunningOutIsGivenUpNotTheSchedule() {
        assertEquals(new Plan(false, H + HOUR, "lease expired on attempt 3 of 3; occurrence given up"),
                plan("FIRE_ONCE", H, 4, H + 5 * 60_000));
    }

    @Test
    void theLastOccurrenceOfAnEndingScheduleArmsNothing() {
        long last = Instant.parse("2031-01-01T03:00:00Z").toEpochMilli();
        assertEquals(new Plan(true, null, null),
                planner.plan("FIRE_ONCE|Z|0 0 3 1 1 ? 2031", last, 1, 3, last + 10));
    }
}
