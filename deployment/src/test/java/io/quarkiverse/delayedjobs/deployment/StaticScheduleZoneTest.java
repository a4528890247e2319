package io.quarkiverse.delayedjobs.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The build judges whether a literal year-limited cron expression still has an occurrence in the zone of its
 * annotation, as {@code recurring(…)} does, not in UTC. Checked at a fixed instant, Dec 31 2026 12:00 UTC, which is
 * already Jan 1 2027 02:00 in Pacific/Kiritimati (UTC+14) and still Dec 31 04:00 in America/Los_Angeles (UTC-8).
 */
public class StaticScheduleZoneTest {

    static final Instant NOW = Instant.parse("2026-12-31T12:00:00Z");
    /** Dec 31 2026 at 20:00, wall-clock time: still to come in UTC, passed in Kiritimati. */
    static final String EVENING = "0 0 20 31 12 ? 2026";
    /** Dec 31 2026 at 06:00, wall-clock time: passed in UTC, still to come in Los Angeles. */
    static final String MORNING = "0 0 6 31 12 ? 2026";

    static String none(String cron) {
        return "cron must match some time after now, '" + cron + "' matches none";
    }

    @Test
    void theLastOccurrenceHasPassedInTheZoneOfTheAnnotation() {
        assertEquals(List.of(none(EVENING)), DelayedJobsProcessor.scheduleRules(EVENING, "Pacific/Kiritimati", NOW));
        assertEquals(List.of(), DelayedJobsProcessor.scheduleRules(EVENING, null, NOW));
    }

    @Test
    void theLastOccurrenceIsStillToComeInTheZoneOfTheAnnotation() {
        assertEquals(List.of(), DelayedJobsProcessor.scheduleRules(MORNING, "America/Los_Angeles", NOW));
        assertEquals(List.of(none(MORNING)), DelayedJobsProcessor.scheduleRules(MORNING, null, NOW));
        assertEquals(List.of(none(MORNING)), DelayedJobsProcessor.scheduleRules(MORNING, "UTC", NOW));
    }

    @Test
    void aZoneFromTheConfigurationRefusesOnlyWhatHasEndedEverywhere() {
        // Still to come in Los Angeles, so in some zone the configuration may give.
        assertEquals(List.of(), DelayedJobsProcessor.scheduleRules(MORNING, "${digest.zone}", NOW));
        assertEquals(List.of(), DelayedJobsProcessor.scheduleRules(MORNING, "${digest.zone:UTC}", NOW));
        // Dec 30 at 06:00 has passed in every zone.
        String passed = "0 0 6 30 12 ? 2026";
        assertEquals(List.of(none(passed)), DelayedJobsProcessor.scheduleRules(passed, "${digest.zone}", NOW));
    }

    @Test
    void aLiteralOffSaysThatOnlyTheConfigurationSwitchesOff() {
        assertEquals(List.of("cron must have 5 (Unix) or 6 or 7 (Quartz) fields, 'off' has 1 (a schedule is switched off"
                + " from the configuration only: cron = \"${key}\" with key=off)"),
                DelayedJobsProcessor.scheduleRules("off", null, NOW));
    }

    @Test
    void anUnknownZoneIsReportedAndTheExpressionStillChecked() {
        assertEquals(List.of("timeZone must be a known time-zone id such as Europe/Paris, was 'Europe/Atlantis'"),
                DelayedJobsProcessor.scheduleRules(MORNING, "Europe/Atlantis", NOW));
        assertEquals(List.of("timeZone must be a known time-zone id such as Europe/Paris, was 'Europe/Atlantis'",
                none("0 0 6 30 12 ? 2026")),
                DelayedJobsProcessor.scheduleRules("0 0 6 30 12 ? 2026", "Europe/Atlantis", NOW));
    }

    @Test
    void aNearestWeekdayToADayAMonthLacksIsJudgedByItsRule() {
        // June, searched first, has no 31st: the cron library's date error went through the build step.
        assertEquals(List.of(), DelayedJobsProcessor.scheduleRules("0 0 0 31W 6,7 ?", null, NOW));
        assertEquals(List.of(none("0 0 0 30W 2 ?")), DelayedJobsProcessor.scheduleRules("0 0 0 30W 2 ?", "Europe/Paris", NOW));
    }
}
