package io.quarkiverse.delayedjobs.runtime.cron;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.quarkiverse.delayedjobs.MisfirePolicy;

class CronScheduleTest {

    static Instant at(String offsetDateTime) {
        return OffsetDateTime.parse(offsetDateTime).toInstant();
    }

    static List<Instant> occurrences(CronSchedule schedule, String from, String to) {
        List<Instant> all = new ArrayList<>();
        Instant next = schedule.next(at(from)).orElseThrow();
        while (!next.isAfter(at(to))) {
            all.add(next);
            next = schedule.next(next).orElseThrow();
        }
        return all;
    }

    static List<Instant> instants(String... offsetDateTimes) {
        return List.of(offsetDateTimes).stream().map(CronScheduleTest::at).toList();
    }

    @Test
    void parisSpringForwardFiresASkippedTimeOnceShiftedByTheGap() {
        CronSchedule daily = CronSchedule.of("30 2 * * *", "Europe/Paris", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-03-28T02:30+01:00", "2026-03-29T03:30+02:00", "2026-03-30T02:30+02:00"),
                occurrences(daily, "2026-03-28T00:00+01:00", "2026-03-30T12:00+02:00"));
    }

    @Test
    void parisFallBackFiresARepeatedTimeOnceAtItsFirstInstant() {
        CronSchedule daily = CronSchedule.of("30 2 * * *", "Europe/Paris", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-10-24T02:30+02:00", "2026-10-25T02:30+02:00", "2026-10-26T02:30+01:00"),
                occurrences(daily, "2026-10-24T00:00+02:00", "2026-10-26T12:00+01:00"));
    }

    @Test
    void parisFallBackEveryQuarterHourFiresEachWallClockTimeOnce() {
        CronSchedule quarterly = CronSchedule.of("*/15 * * * *", "Europe/Paris", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-10-25T02:00+02:00", "2026-10-25T02:15+02:00", "2026-10-25T02:30+02:00",
                "2026-10-25T02:45+02:00", "2026-10-25T03:00+01:00", "2026-10-25T03:15+01:00"),
                occurrences(quarterly, "2026-10-25T01:50+02:00", "2026-10-25T03:20+01:00"));
    }

    @Test
    void parisSpringForwardEveryQuarterHourFiresEachInstantOnce() {
        CronSchedule quarterly = CronSchedule.of("*/15 * * * *", "Europe/Paris", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-03-29T01:45+01:00", "2026-03-29T03:00+02:00", "2026-03-29T03:15+02:00",
                "2026-03-29T03:30+02:00", "2026-03-29T03:45+02:00", "2026-03-29T04:00+02:00"),
                occurrences(quarterly, "2026-03-29T01:40+01:00", "2026-03-29T04:00+02:00"));
    }

    @Test
    void newYorkSpringForwardAndFallBack() {
        CronSchedule early = CronSchedule.of("30 2 * * *", "America/New_York", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-03-07T02:30-05:00", "2026-03-08T03:30-04:00", "2026-03-09T02:30-04:00"),
                occurrences(early, "2026-03-07T00:00-05:00", "2026-03-09T12:00-04:00"));
        CronSchedule repeated = CronSchedule.of("30 1 * * *", "America/New_York", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-10-31T01:30-04:00", "2026-11-01T01:30-04:00", "2026-11-02T01:30-05:00"),
                occurrences(repeated, "2026-10-31T00:00-04:00", "2026-11-02T12:00-05:00"));
    }

    @Test
    void previousFindsTheLatestOccurrenceAtOrBefore() {
        CronSchedule hourly = CronSchedule.of("0 * * * *", "UTC", MisfirePolicy.CATCH_UP);
        assertEquals(Optional.of(at("2026-01-01T10:00Z")), hourly.previous(at("2026-01-01T10:59Z")));
        assertEquals(Optional.of(at("2026-01-01T10:00Z")), hourly.previous(at("2026-01-01T10:00Z")));
        // In the second pass of the Paris overlap, 02:50 of the first pass is the latest occurrence.
        CronSchedule tenMinutes = CronSchedule.of("*/10 * * * *", "Europe/Paris", MisfirePolicy.CATCH_UP);
        assertEquals(Optional.of(at("2026-10-25T02:50+02:00")), tenMinutes.previous(at("2026-10-25T02:40+01:00")));
    }

    @Test
    void unixAndQuartzExpressionsAreAccepted() {
        Instant from = at("2026-01-01T00:00Z");
        assertEquals(at("2026-01-01T03:00Z"), CronSchedule.of("0 3 * * *", "", MisfirePolicy.SKIP).next(from).orElseThrow());
        assertEquals(at("2026-01-01T03:00Z"),
                CronSchedule.of("0 0 3 * * ?", "UTC", MisfirePolicy.SKIP).next(from).orElseThrow());
        assertEquals(at("2026-01-01T03:00Z"),
                CronSchedule.of("0 0 3 * * *", "UTC", MisfirePolicy.SKIP).next(from).orElseThrow());
        assertEquals(at("2030-01-01T03:00Z"),
                CronSchedule.of("0 0 3 * * ? 2030", "UTC", MisfirePolicy.SKIP).next(from).orElseThrow());
        assertEquals(at("2026-01-01T00:00:01Z"),
                CronSchedule.of("* * * * * ?", "UTC", MisfirePolicy.SKIP).next(from).orElseThrow());
    }

    @Test
    void aYearLimitedScheduleEnds() {
        CronSchedule once = CronSchedule.of("0 0 3 1 1 ? 2031", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(Optional.of(at("2031-01-01T03:00Z")), once.next(at("2030-06-01T00:00Z")));
        assertEquals(Optional.empty(), once.next(at("2031-01-01T03:00Z")));
    }

    /** Quartz reads years up to 2299; the cron library's Quartz definition stops at 2099. */
    @Test
    void quartzSchedulesGoOnPast2099() {
        assertEquals(Optional.of(at("2104-02-29T12:00Z")), CronSchedule.of("0 0 12 29 2 ?", "UTC",
                MisfirePolicy.FIRE_ONCE).next(at("2096-02-29T12:00Z")));
        assertEquals(Optional.of(at("2100-01-01T00:00Z")), CronSchedule.of("0 0 0 * * ?", "UTC",
                MisfirePolicy.FIRE_ONCE).next(at("2099-12-31T00:00Z")));
        CronSchedule in2120 = CronSchedule.of("0 0 12 1 1 ? 2120", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(Optional.of(at("2120-01-01T12:00Z")), in2120.next(at("2026-11-26T00:00Z")));
        assertEquals(Optional.of(at("2120-01-01T12:00Z")), in2120.previous(at("2121-01-01T00:00Z")));
        assertEquals(Optional.of(at("2299-12-31T12:00Z")), CronSchedule.of("0 0 12 31 12 ? 2299", "UTC",
                MisfirePolicy.FIRE_ONCE, at("2299-01-01T00:00Z")).next(at("2299-01-01T00:00Z")));
        assertEquals(Optional.empty(), CronSchedule.of("0 0 12 31 12 ?", "UTC", MisfirePolicy.FIRE_ONCE)
                .next(at("2299-12-31T12:00Z")));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> CronSchedule.of("0 0 12 1 1 ? 2300", "UTC", MisfirePolicy.FIRE_ONCE)).getMessage()
                .contains("2300"));
    }

    /** Quartz accepts L-nW; the cron library cannot compute it, so it is refused rather than read wrongly. */
    @Test
    void aNearestWeekdayCountedFromTheEndIsRefused() {
        assertEquals("cron must be a valid Unix 5-field or Quartz 6/7-field expression, '0 0 12 L-5W * ?' is not: the"
                + " nearest weekday W cannot be counted from the last day (L-nW), was 'L-5W'",
                assertThrows(IllegalArgumentException.class,
                        () -> CronSchedule.of("0 0 12 L-5W * ?", "UTC", MisfirePolicy.FIRE_ONCE)).getMessage());
        assertEquals(Optional.of(at("2026-01-26T12:00Z")), CronSchedule.of("0 0 12 L-5 * ?", "UTC",
                MisfirePolicy.FIRE_ONCE).next(at("2026-01-01T00:00Z")));
    }

    @Test
    void invalidExpressionsAndZonesAreRefusedWithTheRule() {
        assertEquals("cron must match some time after now, '0 0 0 30 2 ?' matches none", assertThrows(
                IllegalArgumentException.class, () -> CronSchedule.of("0 0 0 30 2 ?", "UTC", MisfirePolicy.SKIP))
                .getMessage());
        assertEquals("cron must match some time after now, '0 0 3 1 1 ? 2020' matches none", assertThrows(
                IllegalArgumentException.class, () -> CronSchedule.of("0 0 3 1 1 ? 2020", "UTC", MisfirePolicy.SKIP))
                .getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> CronSchedule.of("61 * * * *", "UTC", MisfirePolicy.SKIP));
        assertTrue(bad.getMessage().startsWith("cron must be a valid Unix 5-field or Quartz 6/7-field expression,"
                + " '61 * * * *' is not"), bad.getMessage());
        assertEquals("cron must have 5 (Unix) or 6 or 7 (Quartz) fields, '* * * *' has 4", assertThrows(
                IllegalArgumentException.class, () -> CronSchedule.of("* * * *", "UTC", MisfirePolicy.SKIP))
                .getMessage());
        assertEquals("cron must not be blank", assertThrows(IllegalArgumentException.class,
                () -> CronSchedule.of(" ", "UTC", MisfirePolicy.SKIP)).getMessage());
        assertEquals("zone must be a known time-zone id such as Europe/Paris, was 'Mars/Olympus'", assertThrows(
                IllegalArgumentException.class, () -> CronSchedule.of("0 3 * * *", "Mars/Olympus", MisfirePolicy.SKIP))
                .getMessage());
    }

    @Test
    void encodedSchedulesReadBack() {
        CronSchedule schedule = CronSchedule.of("0 9 * * MON", "Europe/Paris", MisfirePolicy.CATCH_UP);
        assertEquals("CATCH_UP|Europe/Paris|0 9 * * MON", schedule.encode());
        CronSchedule back = CronSchedule.decode(schedule.encode());
        assertEquals(schedule.encode(), back.encode());
    }

    @Test
    void aStoredScheduleThatEndedStillReadsBack() {
        // Its last occurrence may be claimed after it passed.
        CronSchedule ended = CronSchedule.decode("FIRE_ONCE|UTC|0 0 3 1 1 ? 2025");
        assertEquals(Optional.of(at("2025-01-01T03:00Z")), ended.previous(at("2025-06-01T00:00Z")));
        assertEquals(Optional.empty(), ended.next(at("2025-01-01T03:00Z")));
    }

    @Test
    void everySecondSchedulesFireOnWholeSeconds() {
        CronSchedule everySecond = CronSchedule.of("* * * * * ?", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(Optional.of(at("2026-01-01T10:00:01Z")), everySecond.next(at("2026-01-01T10:00:00.456Z")));
        assertEquals(Optional.of(at("2026-01-01T10:00:00Z")), everySecond.previous(at("2026-01-01T10:00:00.456Z")));
        CronSchedule everyFifth = CronSchedule.of("0/5 * * * * ?", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(Optional.of(at("2026-01-01T10:00:05Z")), everyFifth.next(at("2026-01-01T10:00:00.456Z")));
    }

    @Test
    void parisSpringForwardEverySecondFiresEachInstantOnceOnWholeSeconds() {
        CronSchedule everySecond = CronSchedule.of("* * * * * ?", "Europe/Paris", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-03-29T01:59:59+01:00", "2026-03-29T03:00+02:00", "2026-03-29T03:00:01+02:00",
                "2026-03-29T03:00:02+02:00"),
                occurrences(everySecond, "2026-03-29T01:59:58+01:00", "2026-03-29T03:00:02+02:00"));
        // From within the first second after the gap, as a worker re-arms an occurrence it claimed there.
        assertEquals(Optional.of(at("2026-03-29T03:00:01+02:00")),
                everySecond.next(at("2026-03-29T03:00:00.500+02:00")));
    }

    @Test
    void aThirtyMinuteGapFiresEachTimeInTheOrderOfItsInstant() {
        // Australia/Lord_Howe springs forward from 02:00 (+10:30) to 02:30 (+11:00): 02:00 and 02:20 shift by 30
        // minutes, and 02:20 shifted comes after the real 02:40.
        CronSchedule everyTwenty = CronSchedule.of("*/20 * * * *", "Australia/Lord_Howe", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-10-04T02:30+11:00", "2026-10-04T02:40+11:00", "2026-10-04T02:50+11:00",
                "2026-10-04T03:00+11:00", "2026-10-04T03:20+11:00"),
                occurrences(everyTwenty, "2026-10-04T01:50+10:30", "2026-10-04T03:20+11:00"));
        assertEquals(Optional.of(at("2026-10-04T02:50+11:00")), everyTwenty.previous(at("2026-10-04T02:55+11:00")));
        assertEquals(Optional.of(at("2026-10-04T02:40+11:00")), everyTwenty.previous(at("2026-10-04T02:45+11:00")));
        // Pacific/Chatham springs forward from 02:45 (+12:45) to 03:45 (+13:45): 03:10 shifts to 04:10.
        CronSchedule chatham = CronSchedule.of("10,50 0-3 * * *", "Pacific/Chatham", MisfirePolicy.CATCH_UP);
        assertEquals(Optional.of(at("2026-09-27T04:10+13:45")), chatham.previous(at("2026-09-27T04:10+13:45")));
        assertEquals(Optional.of(at("2026-09-27T03:50+13:45")), chatham.previous(at("2026-09-27T04:00+13:45")));
    }

    @Test
    void aNearestWeekdayToADayAMonthLacksSkipsThatMonth() {
        // The weekday nearest the 31st, in the months that have a 31st, as with a plain 31; 2026-01-31 and
        // 2026-10-31 are Saturdays.
        CronSchedule monthEnd = CronSchedule.of("0 0 12 31W * ?", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-01-30T12:00Z", "2026-03-31T12:00Z"),
                occurrences(monthEnd, "2026-01-01T00:00Z", "2026-04-30T12:00Z"));
        assertEquals(Optional.of(at("2026-01-30T12:00Z")), monthEnd.previous(at("2026-03-15T00:00Z")));
        assertEquals(Optional.of(at("2026-10-30T12:00Z")), monthEnd.previous(at("2026-12-01T00:00Z")));
        // 2028-02-29 is a Tuesday.
        CronSchedule leapDay = CronSchedule.of("0 0 12 29W 2 ?", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(Optional.of(at("2028-02-29T12:00Z")), leapDay.next(at("2026-01-01T00:00Z")));
        assertEquals(Optional.of(at("2028-02-29T12:00Z")), leapDay.previous(at("2031-01-01T00:00Z")));
    }

    @Test
    void aNearestWeekdayToALastDayOfMonthThatIsASundayIsTheFridayBefore() {
        // Quartz does not cross into the next month: 2026-05-31 is a Sunday, so 31W is Friday 29 May.
        CronSchedule monthEnd = CronSchedule.of("0 0 12,18 31W * ?", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-05-29T12:00Z", "2026-05-29T18:00Z", "2026-07-31T12:00Z"),
                occurrences(monthEnd, "2026-04-01T00:00Z", "2026-07-31T12:00Z"));
        assertEquals(Optional.of(at("2026-05-29T18:00Z")), monthEnd.previous(at("2026-06-15T00:00Z")));
        assertEquals(Optional.of(at("2026-05-29T18:00Z")), monthEnd.previous(at("2026-05-31T10:00Z")));
        assertEquals(Optional.of(at("2026-05-29T12:00Z")), monthEnd.previous(at("2026-05-29T13:00Z")));
        assertEquals(Optional.of(at("2026-03-31T18:00Z")), monthEnd.previous(at("2026-05-29T11:00Z")));
    }

    @Test
    void quartzRangesWhoseEndComesBeforeTheirStartWrapAround() {
        CronSchedule night = CronSchedule.of("0 0 22-2 * * ?", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-01-01T22:00Z", "2026-01-01T23:00Z", "2026-01-02T00:00Z", "2026-01-02T01:00Z",
                "2026-01-02T02:00Z", "2026-01-02T22:00Z"), occurrences(night, "2026-01-01T12:00Z", "2026-01-02T22:00Z"));
        CronSchedule everyOtherHour = CronSchedule.of("0 0 22-2/2 * * ?", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-01-01T22:00Z", "2026-01-02T00:00Z", "2026-01-02T02:00Z", "2026-01-02T22:00Z"),
                occurrences(everyOtherHour, "2026-01-01T12:00Z", "2026-01-02T22:00Z"));
        CronSchedule turnOfMonth = CronSchedule.of("0 0 0 30-2 * ?", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-01-30T00:00Z", "2026-01-31T00:00Z", "2026-02-01T00:00Z", "2026-02-02T00:00Z",
                "2026-03-01T00:00Z"), occurrences(turnOfMonth, "2026-01-29T00:00Z", "2026-03-01T00:00Z"));
        CronSchedule winter = CronSchedule.of("0 0 0 1 NOV-FEB ?", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-11-01T00:00Z", "2026-12-01T00:00Z", "2027-01-01T00:00Z", "2027-02-01T00:00Z",
                "2027-11-01T00:00Z"), occurrences(winter, "2026-03-01T00:00Z", "2027-11-01T00:00Z"));
        assertEquals("FIRE_ONCE|UTC|0 0 0 1 NOV-FEB ?", winter.encode());
    }

    @Test
    void aQuartzDayOfWeekRangeThatWrapsAroundMayHaveAStep() {
        // Friday, Sunday and Tuesday, as Quartz reads them; 2026-01-02 is a Friday.
        for (String expression : new String[] { "0 0 12 ? * 6-3/2", "0 0 12 ? * FRI-TUE/2" }) {
            CronSchedule schedule = CronSchedule.of(expression, "UTC", MisfirePolicy.FIRE_ONCE);
            assertEquals(instants("2026-01-02T12:00Z", "2026-01-04T12:00Z", "2026-01-06T12:00Z", "2026-01-09T12:00Z"),
                    occurrences(schedule, "2026-01-01T00:00Z", "2026-01-09T12:00Z"), expression);
        }
    }

    @Test
    void unixDayOfWeekRangesMayStartOnSunday() {
        CronSchedule workWeek = CronSchedule.of("0 9 * * SUN-THU", "UTC", MisfirePolicy.FIRE_ONCE);
        // 2026-11-22 is a Sunday.
        assertEquals(instants("2026-11-22T09:00Z", "2026-11-23T09:00Z", "2026-11-24T09:00Z", "2026-11-25T09:00Z",
                "2026-11-26T09:00Z", "2026-11-29T09:00Z"),
                occurrences(workWeek, "2026-11-21T00:00Z", "2026-11-29T12:00Z"));
        CronSchedule weekend = CronSchedule.of("0 9 * * MON,SUN-SUN,SAT", "UTC", MisfirePolicy.FIRE_ONCE);
        assertEquals(instants("2026-11-21T09:00Z", "2026-11-22T09:00Z", "2026-11-23T09:00Z"),
                occurrences(weekend, "2026-11-21T00:00Z", "2026-11-23T12:00Z"));
    }

    @Test
    void unixSundayAloneIsSundayOnly() {
        // 2026-11-22 is a Sunday.
        assertEquals(instants("2026-11-22T09:00Z", "2026-11-29T09:00Z"), occurrences(
                CronSchedule.of("0 9 * * SUN-SUN", "UTC", MisfirePolicy.FIRE_ONCE), "2026-11-21T00:00Z",
                "2026-11-29T12:00Z"));
        assertEquals(instants("2026-11-22T09:00Z", "2026-11-29T09:00Z"), occurrences(
                CronSchedule.of("0 9 * * SUN-SUN/2", "UTC", MisfirePolicy.FIRE_ONCE), "2026-11-21T00:00Z",
                "2026-11-29T12:00Z"));
    }

    @Test
    void unixDaysOfMonthAndWeekMustBothMatchWhenEitherStartsWithAStar() {
        // As cron reads it: a field starting with '*' is no restriction, so the days match both fields, not either.
        assertEquals(instants("2026-01-31T00:00Z", "2026-02-21T00:00Z", "2026-03-21T00:00Z", "2026-04-11T00:00Z"),
                occurrences(CronSchedule.of("0 0 */10 * SAT", "UTC", MisfirePolicy.FIRE_ONCE), "2026-01-01T00:00Z",
                        "2026-04-30T00:00Z"));
        // Both restricted: either matches (the 1st, or a Monday).
        assertEquals(instants("2026-02-01T12:00Z", "2026-02-02T12:00Z", "2026-02-09T12:00Z"),
                occurrences(CronSchedule.of("0 12 1 * MON", "UTC", MisfirePolicy.FIRE_ONCE), "2026-01-31T00:00Z",
                        "2026-02-09T13:00Z"));
    }

    /** The cron library read '15L' as 'L', and fired any day of a list such as '2L,6'; Quartz refuses them. */
    @Test
    void shapesQuartzRefusesAreRefusedWithTheRule() {
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> CronSchedule.of("0 0 0 15L * ?", "UTC", MisfirePolicy.SKIP));
        assertEquals("cron must be a valid Unix 5-field or Quartz 6/7-field expression, '0 0 0 15L * ?' is not: L in"
                + " the day of month stands alone, as L-n or as LW, was '15L'", bad.getMessage());
        for (String days : new String[] { "2L,6", "6,2L", "2#1,6#3", "MON#1,FRI" }) {
            String cron = "0 0 0 ? * " + days;
            bad = assertThrows(IllegalArgumentException.class, () -> CronSchedule.of(cron, "UTC", MisfirePolicy.SKIP),
                    cron);
            assertEquals("cron must be a valid Unix 5-field or Quartz 6/7-field expression, '" + cron + "' is not: DL"
                    + " and D#n in the day of week cannot be in a list with other days, was '" + days + "'",
                    bad.getMessage());
        }
        assertEquals(Optional.of(at("2026-11-30T00:00Z")),
                CronSchedule.of("0 0 0 ? * 2L", "UTC", MisfirePolicy.SKIP).next(at("2026-11-26T00:00Z")));
        assertEquals(Optional.of(at("2026-11-30T00:00Z")),
                CronSchedule.of("0 0 0 L * ?", "UTC", MisfirePolicy.SKIP).next(at("2026-11-26T00:00Z")));
    }

    @Test
    void lastAndNearestWeekdayDaysOfMonthInAListAreRefused() {
        for (String cron : new String[] { "0 0 12 15,L * ?", "0 0 12 L,15 * ?", "0 0 12 LW,15 * ?",
                "0 0 12 L-3,10 * ?", "0 0 12 15W,20 * ?" }) {
            IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                    () -> CronSchedule.of(cron, "UTC", MisfirePolicy.SKIP), cron);
            assertEquals("cron must be a valid Unix 5-field or Quartz 6/7-field expression, '" + cron + "' is not: L"
                    + " and W in the day of month cannot be in a list with other days", bad.getMessage());
        }
    }

    @Test
    void expressionsTheLibraryParsesButCannotComputeAreRefusedWithTheRule() {
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> CronSchedule.of("0 0 12 1-L * ?", "UTC", MisfirePolicy.SKIP));
        assertEquals("cron must be a valid Unix 5-field or Quartz 6/7-field expression, '0 0 12 1-L * ?' is not: a"
                + " range in the day of month cannot end on L, was '1-L'", bad.getMessage());
        bad = assertThrows(IllegalArgumentException.class,
                () -> CronSchedule.of("0 0 0 ? * 6L-2", "UTC", MisfirePolicy.SKIP));
        assertEquals("cron must be a valid Unix 5-field or Quartz 6/7-field expression, '0 0 0 ? * 6L-2' is not: L"
                + " in the day of week ends it (DL, the last D of the month), was '6L-2'", bad.getMessage());
        for (String cron : new String[] { "0 0 12 ? * 6#6", "0 0 12 ? * 6#0", "0 0 12 ? * 2#2,6#9" }) {
            bad = assertThrows(IllegalArgumentException.class, () -> CronSchedule.of(cron, "UTC", MisfirePolicy.SKIP),
                    cron);
            assertTrue(bad.getMessage().startsWith("cron must be a valid Unix 5-field or Quartz 6/7-field expression, '"
                    + cron + "' is not: the n of a day of week D#n must be 1 to 5, was "), bad.getMessage());
        }
        assertEquals(Optional.of(at("2026-12-18T12:00Z")),
                CronSchedule.of("0 0 12 ? * 6#3", "UTC", MisfirePolicy.SKIP).next(at("2026-11-26T00:00Z")));
        // Quartz's rule, not Spring's (days of week 0-7), for an expression with a '?'.
        bad = assertThrows(IllegalArgumentException.class,
                () -> CronSchedule.of("0 0 12 ? * 8", "UTC", MisfirePolicy.SKIP));
        assertTrue(bad.getMessage().endsWith("Value 8 not in range [1, 7]"), bad.getMessage());
    }

    @Test
    void previousFindsTheEndOfAnEarlierYearFromAYearTheScheduleExcludes() {
        assertEquals(Optional.of(at("2030-12-30T12:00Z")), CronSchedule
                .of("0 0 12 ? * MON 2026-2030", "UTC", MisfirePolicy.CATCH_UP).previous(at("2031-01-09T00:00Z")));
        assertEquals(Optional.of(at("2026-12-31T12:00Z")), CronSchedule
                .ofAnyTime("0 0 12 * * ? 2026", "UTC", MisfirePolicy.CATCH_UP).previous(at("2027-06-15T00:00Z")));
        assertEquals(Optional.of(at("2026-12-31T12:00Z")), CronSchedule
                .ofAnyTime("0 0 12 31 12 ? 2026", "UTC", MisfirePolicy.CATCH_UP).previous(at("2027-06-15T00:00Z")));
        assertEquals(Optional.of(at("2028-12-29T12:00Z")), CronSchedule
                .ofAnyTime("0 0 12 LW * ? 2026,2028", "UTC", MisfirePolicy.CATCH_UP).previous(at("2029-03-01T00:00Z")));
        assertEquals(Optional.of(at("2026-12-31T12:00Z")), CronSchedule
                .of("0 12 31 12 *", "UTC", MisfirePolicy.CATCH_UP).previous(at("2027-06-15T00:00Z")));
        assertEquals(Optional.empty(), CronSchedule
                .ofAnyTime("0 0 12 * * ? 2030", "UTC", MisfirePolicy.CATCH_UP).previous(at("2027-06-15T00:00Z")));
        // The fifth Sunday of February: 2032 first, then 2060.
        assertEquals(Optional.of(at("2032-02-29T12:00Z")), CronSchedule
                .ofAnyTime("0 0 12 ? 2 1#5", "UTC", MisfirePolicy.CATCH_UP).previous(at("2059-06-01T00:00Z")));
        assertEquals(Optional.empty(), CronSchedule
                .ofAnyTime("0 0 12 ? 2 1#5 2030-2040", "UTC", MisfirePolicy.CATCH_UP).previous(at("2031-06-01T00:00Z")));
    }

    @Test
    void aNearestWeekdayToADayTheFirstMonthSearchedLacksIsAccepted() {
        Instant now = at("2026-11-27T00:00Z");
        // 2027-07-31 is a Saturday: the Friday before. June, searched first, has no 31st.
        assertEquals(Optional.of(at("2027-07-30T00:00Z")),
                CronSchedule.of("0 0 0 31W 6,7 ?", "UTC", MisfirePolicy.FIRE_ONCE, now).next(now));
        assertEquals(Optional.of(at("2026-12-31T00:00Z")),
                CronSchedule.of("0 0 0 31W 11,12 ?", "UTC", MisfirePolicy.FIRE_ONCE, now).next(now));
        assertEquals(Optional.of(at("2027-03-30T00:00Z")),
                CronSchedule.of("0 0 0 30W 2-4 ?", "UTC", MisfirePolicy.FIRE_ONCE, now).next(now));
        // One that no month has is refused with the rule, not the cron library's date error.
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> CronSchedule.of("0 0 0 30W 2 ?", "UTC", MisfirePolicy.FIRE_ONCE, now));
        assertEquals("cron must match some time after now, '0 0 0 30W 2 ?' matches none", bad.getMessage());
    }

    @Test
    void lastDayMinusZeroIsTheLastDay() {
        Instant now = at("2026-11-27T00:00Z");
        assertEquals(Optional.of(at("2026-11-30T12:00Z")),
                CronSchedule.of("0 0 12 L-0 * ?", "UTC", MisfirePolicy.FIRE_ONCE, now).next(now));
    }

    @Test
    void everySecondAroundASpringForwardGapStepsASecondAtATime() {
        // Each time of the gap (02:00 to 03:00) fires shifted by an hour, at the same instant as the real time after
        // the gap: an every-second schedule fires each second once. The walk looked at each time of the gap in turn
        // for every step (about 30 ms each), and 3,600 steps took minutes; the timeout is a guard against that.
        CronSchedule everySecond = CronSchedule.of("* * * * * ?", "Europe/Paris", MisfirePolicy.CATCH_UP,
                at("2026-03-01T00:00Z"));
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            Instant t = at("2026-03-29T01:59:00+01:00");
            while (t.isBefore(at("2026-03-29T04:00:00+02:00"))) {
                Instant next = everySecond.next(t).orElseThrow();
                assertEquals(t.plusSeconds(1), next);
                assertEquals(Optional.of(t), everySecond.previous(next.minusNanos(1)));
                t = next;
            }
        });
        // A schedule with times in the gap and none after it for a while: the gap's times that fire after 03:30.
        CronSchedule lateInHour = CronSchedule.of("* 45-59 2,3 * * ?", "Europe/Paris", MisfirePolicy.CATCH_UP,
                at("2026-03-01T00:00Z"));
        assertEquals(Optional.of(at("2026-03-29T03:45:00+02:00")), lateInHour.next(at("2026-03-29T03:30:00+02:00")));
        assertEquals(Optional.of(at("2026-03-29T03:59:59+02:00")),
                lateInHour.previous(at("2026-03-29T04:10:00+02:00")));
        // Before 03:45, the gap's times fire later still, and hour 2 has no real time that day: the day before.
        assertEquals(Optional.of(at("2026-03-28T03:59:59+01:00")),
                lateInHour.previous(at("2026-03-29T03:44:59+02:00")));
    }

    @Test
    void aroundAnOverlapAndAGapEachCallLooksAtFewTimes() {
        // From the second pass of a fall-back overlap, every repeated time fired in the first; just after a gap, the
        // times of the gap that shift past the instant asked about fire later. Both were walked a time at a time
        // (50-250 ms a call); the timeout is a guard against that.
        CronSchedule everySecond = CronSchedule.ofAnyTime("* * * * * ?", "Europe/Paris", MisfirePolicy.CATCH_UP);
        CronSchedule hourTwo = CronSchedule.ofAnyTime("* * 2 * * ?", "Europe/Paris", MisfirePolicy.CATCH_UP);
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            for (Instant t = at("2026-10-25T02:00:00+01:00"); t.isBefore(at("2026-10-25T03:00:00+01:00")); t = t
                    .plusSeconds(1)) {
                assertEquals(Optional.of(at("2026-10-25T03:00:00+01:00")), everySecond.next(t));
            }
            for (Instant t = at("2026-03-29T03:00:00+02:00"); t.isBefore(at("2026-03-29T04:00:00+02:00")); t = t
                    .plusSeconds(1)) {
                assertEquals(Optional.of(t), hourTwo.previous(t));
            }
        });
    }
}
