package io.quarkiverse.delayedjobs.runtime.cron;

import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.time.zone.ZoneOffsetTransition;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.field.CronFieldName;
import com.cronutils.model.field.constraint.FieldConstraintsBuilder;
import com.cronutils.model.field.definition.FieldDefinition;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;

import io.quarkiverse.delayedjobs.MisfirePolicy;

/**
 * A cron expression in a time zone, with the DST rules this extension promises: the cron matches wall-clock times,
 * and each matching wall-clock time fires once. A time that does not exist (in a spring-forward gap) fires at the
 * same wall-clock time shifted forward by the length of the gap, as {@link ZonedDateTime#of} resolves it; a time that
 * exists twice (in a fall-back overlap) fires at its first, earlier-offset instant only. Two times that land on the
 * same instant fire once.
 */
public final class CronSchedule {

    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    /**
     * Unix cron as cron reads it when the day-of-month or the day-of-week field starts with {@code *} ({@code *}/10):
     * that field is not a restriction, so a day must match both fields rather than either.
     */
    private static final CronParser UNIX_BOTH_DAYS = new CronParser(CronDefinitionBuilder.defineCron()
            .withMinutes().withValidRange(0, 59).withStrictRange().and()
            .withHours().withValidRange(0, 23).withStrictRange().and()
            .withDayOfMonth().withValidRange(1, 31).withStrictRange().and()
            .withMonth().withValidRange(1, 12).withStrictRange().and()
            .withDayOfWeek().withValidRange(0, 7).withMondayDoWValue(1).withIntMapping(7, 0).withStrictRange().and()
            .matchDayOfWeekAndDayOfMonth()
            .instance());
    private static final CronParser QUARTZ = new CronParser(quartzUntil(2299));
    private static final CronParser SPRING = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));
    /** {@code SUN} as the first day of a day-of-week range, at the start of the field or after a comma. */
    private static final Pattern SUNDAY_FIRST = Pattern.compile("(?i)(^|,)SUN-");
    /** {@code SUN-SUN}, with or without a step: Sunday alone, which {@code 0-SUN} would read as the whole week. */
    private static final Pattern SUNDAY_ALONE = Pattern.compile("(?i)(^|,)SUN-SUN(/[0-9]+)?(?=,|$)");
    /** Bounds the search for the next instant; a schedule matching no time for this many candidates has none. */
    private static final int MAX_CANDIDATES = 100_000;
    /** A range in one item of a field, {@code 22-2} or {@code NOV-FEB/2}. */
    private static final Pattern RANGE = Pattern.compile("(?i)([0-9]{1,2}|[A-Z]{3})-([0-9]{1,2}|[A-Z]{3})(?:/([0-9]{1,2}))?");
    private static final List<String> MONTHS = List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP",
            "OCT", "NOV", "DEC");
    /** Quartz numbers the days of the week from Sunday, 1. */
    private static final List<String> DAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");
    /** The least and greatest value of seconds, minutes, hours, days of month, months and days of week. */
    private static final int[][] BOUNDS = { { 0, 59 }, { 0, 59 }, { 0, 23 }, { 1, 31 }, { 1, 12 }, { 1, 7 } };
    /** A nearest-weekday day of month, {@code 15W}. */
    private static final Pattern NEAREST_WEEKDAY = Pattern.compile("(?i)(\\d{1,2})W");
    /** The n of a Quartz n-th day of the week in the month, 3 in {@code 6#3}. */
    private static final Pattern NTH_DAY_OF_WEEK = Pattern.compile("#(\\d+)");
    /** The calendar repeats after 400 years. */
    private static final int MONTHS_IN_CYCLE = 400 * 12;
    /** Quartz's earliest year: no occurrence is looked for before it. */
    private static final int EARLIEST_YEAR = 1970;

    private final String expression;
    private final ZoneId zone;
    private final MisfirePolicy misfire;
    private final ExecutionTime executionTime;
    /** The day of a Quartz nearest-weekday day of month, 15 for {@code 15W}; 0 when there is none. */
    private final int nearestWeekdayTo;

    private CronSchedule(String expression, ZoneId zone, MisfirePolicy misfire, ExecutionTime executionTime) {
        this.expression = expression;
        this.zone = zone;
        this.misfire = misfire;
        this.executionTime = executionTime;
        String[] fields = expression.trim().split("\\s+");
        Matcher day = fields.length < 6 ? null : NEAREST_WEEKDAY.matcher(fields[3]);
        this.nearestWeekdayTo = day != null && day.matches() ? Integer.parseInt(day.group(1)) : 0;
    }

    /**
     * Parses a Unix 5-field or Quartz 6/7-field expression that matches some time after now in {@code zone}.
     *
     * @throws IllegalArgumentException naming {@code cron} or {@code zone} when either is invalid
     */
    public static CronSchedule of(String expression, String zone, MisfirePolicy misfire) {
        return of(expression, zone, misfire, Instant.now());
    }

    /**
     * Parses a Unix 5-field or Quartz 6/7-field expression that matches some time after {@code now} in {@code zone}
     * (UTC when empty): the build checks a static schedule so, in the zone of its annotation.
     *
     * @throws IllegalArgumentException naming {@code cron} or {@code zone} when either is invalid
     */
    public static CronSchedule of(String expression, String zone, MisfirePolicy misfire, Instant now) {
        CronSchedule schedule = ofAnyTime(expression, zone, misfire);
        // In the schedule's zone: a year-limited expression read as UTC wall-clock time may end hours off.
        if (schedule.next(now).isEmpty()) {
            throw new IllegalArgumentException("cron must match some time after now, '" + expression + "' matches none");
        }
        return schedule;
    }

    private static Cron parseSyntax(String expression) {
        if (expression == null || expression.isBlank()) {
            throw new IllegalArgumentException("cron must not be blank");
        }
        String[] field = expression.trim().split("\\s+");
        int fields = field.length;
        try {
            if (fields == 5) {
                boolean eitherDayUnrestricted = field[2].startsWith("*") || field[4].startsWith("*");
                return (eitherDayUnrestricted ? UNIX_BOTH_DAYS : UNIX).parse(sundayFirst(expression)).validate();
            }
            if (fields == 6 || fields == 7) {
                Matcher nth = NTH_DAY_OF_WEEK.matcher(field[5]);
                while (nth.find()) {
                    int n = Integer.parseInt(nth.group(1));
                    if (n < 1 || n > 5) {
                        // The cron library takes it and never fires it; Quartz refuses it.
                        throw new IllegalArgumentException("the n of a day of week D#n must be 1 to 5, was " + n);
                    }
                }
                String dayOfMonth = field[3].toUpperCase(Locale.ROOT);
                String dayOfWeek = field[5].toUpperCase(Locale.ROOT);
                if (dayOfMonth.contains(",") && dayOfMonth.matches(".*[LW].*")) {
                    // The cron library would keep the plain days of the list and drop the others; Quartz refuses L in a list,
                    // and drops the other days of a W list.
                    throw new IllegalArgumentException("L and W in the day of month cannot be in a list with other days");
                }
                // Shapes the cron library reads wrongly ('15L' as 'L') or refuses with a message of its own that
                // names no rule; Quartz refuses the first three too.
                if (dayOfMonth.matches("\\d+L")) {
                    throw new IllegalArgumentException("L in the day of month stands alone, as L-n or as LW, was '"
                            + field[3] + "'");
                }
                if (dayOfWeek.contains(",") && (dayOfWeek.contains("L") || dayOfWeek.contains("#"))) {
                    // The cron library fires on any of the list's days; Quartz refuses such lists.
                    throw new IllegalArgumentException("DL and D#n in the day of week cannot be in a list with other"
                            + " days, was '" + field[5] + "'");
                }
                if (dayOfWeek.matches(".*L.+")) {
                    throw new IllegalArgumentException("L in the day of week ends it (DL, the last D of the month),"
                            + " was '" + field[5] + "'");
                }
                if (dayOfMonth.matches("L-\\d+W")) {
                    throw new IllegalArgumentException("the nearest weekday W cannot be counted from the last day"
                            + " (L-nW), was '" + field[3] + "'");
                }
                if (dayOfMonth.matches("[^,]*-L")) {
                    throw new IllegalArgumentException("a range in the day of month cannot end on L, was '" + field[3]
                            + "'");
                }
                // Quartz's 'L-0' (the last day, none before it), whose 0 the cron library's range check refuses.
                String quartzForm = expression;
                if (field[3].equalsIgnoreCase("L-0")) {
                    String[] lastDay = field.clone();
                    lastDay[3] = "L";
                    quartzForm = String.join(" ", lastDay);
                }
                try {
                    return QUARTZ.parse(wrapRanges(quartzForm)).validate();
                } catch (IllegalArgumentException quartz) {
                    if (fields == 6 && !expression.contains("?")) {
                        // Quartz wants '?' in day-of-month or day-of-week; accept '*' in both as Spring does. (With a
                        // '?', Quartz's error is the one that names the rule: Spring's ranges differ, days of week 0-7.)
                        return SPRING.parse(expression).validate();
                    }
                    throw quartz;
                }
            }
        } catch (IllegalArgumentException e) {
            throw invalid(expression, e);
        }
        throw new IllegalArgumentException("cron must have 5 (Unix) or 6 or 7 (Quartz) fields, '" + expression
                + "' has " + fields);
    }

    private static IllegalArgumentException invalid(String expression, IllegalArgumentException cause) {
        return new IllegalArgumentException("cron must be a valid Unix 5-field or Quartz 6/7-field expression, '"
                + expression + "' is not: " + cause.getMessage(), cause);
    }

    /**
     * Quartz reads a range whose end comes before its start as wrapping around ({@code 22-2} is 22:00 to 02:00,
     * {@code NOV-FEB} November to February); the cron library keeps its start only, so such ranges are given to it as
     * lists. It wraps days of week itself, but fails on them with a step ({@code FRI-TUE/2}); a year range cannot
     * wrap.
     */
    private static String wrapRanges(String expression) {
        String[] fields = expression.trim().split("\\s+");
        for (int f = 0; f < BOUNDS.length; f++) {
            int min = BOUNDS[f][0];
            int max = BOUNDS[f][1];
            StringJoiner items = new StringJoiner(",");
            for (String item : fields[f].split(",", -1)) {
                Matcher range = RANGE.matcher(item);
                int start = range.matches() ? value(range.group(1), f) : -1;
                int end = range.matches() ? value(range.group(2), f) : -1;
                int step = range.matches() && range.group(3) != null ? Integer.parseInt(range.group(3)) : 1;
                if (start < min || start > max || end < min || end >= start || step < 1) {
                    items.add(item); // not a wrapping range: the parser reads it, or refuses it
                    continue;
                }
                int values = max - min + 1;
                for (int i = start; i <= end + values; i += step) {
                    items.add(String.valueOf(min + (i - min) % values));
                }
            }
            fields[f] = items.toString();
        }
        return String.join(" ", fields);
    }

    private static int value(String text, int field) {
        if (Character.isDigit(text.charAt(0))) {
            return Integer.parseInt(text);
        }
        List<String> names = field == 4 ? MONTHS : field == 5 ? DAYS : List.of();
        return names.indexOf(text.toUpperCase(Locale.ROOT)) + 1;
    }

    /**
     * Unix cron numbers Sunday 0 or 7, and the parser reads {@code SUN} as 7, which refuses ranges that start with it
     * ({@code SUN-THU}): as the first day of a range, Sunday is 0.
     */
    private static String sundayFirst(String expression) {
        String[] fields = expression.trim().split("\\s+");
        fields[4] = SUNDAY_ALONE.matcher(fields[4]).replaceAll("$10");
        fields[4] = SUNDAY_FIRST.matcher(fields[4]).replaceAll("$10-");
        return String.join(" ", fields);
    }

    public static ZoneId zone(String zone) {
        if (zone == null || zone.isEmpty()) {
            return ZoneOffset.UTC;
        }
        try {
            return ZoneId.of(zone);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("zone must be a known time-zone id such as Europe/Paris, was '" + zone
                    + "'", e);
        }
    }

    public String expression() {
        return expression;
    }

    public ZoneId zone() {
        return zone;
    }

    public MisfirePolicy misfire() {
        return misfire;
    }

    /** The first occurrence strictly after {@code after}; empty when the schedule has ended (a year-limited one). */
    public Optional<Instant> next(Instant after) {
        // Whole seconds: the cron library keeps the fraction of the time it starts from in every-second schedules.
        LocalDateTime local = LocalDateTime.ofInstant(after, zone).truncatedTo(ChronoUnit.SECONDS);
        // A wall-clock time in a gap just before 'after' fires shifted forward, possibly after 'after': look back.
        ZoneOffsetTransition transition = zone.getRules().previousTransition(after.plusNanos(1));
        if (transition != null && transition.isGap()
                && !transition.getInstant().isBefore(after.minus(transition.getDuration()))) {
            local = transition.getDateTimeBefore().minusSeconds(1);
        } else if (transition != null && transition.isOverlap()
                && after.isBefore(transition.getInstant().plus(transition.getDuration().abs()))) {
            // In the second pass of an overlap: its repeated times fired in the first, before 'after'.
            local = transition.getDateTimeBefore().minusSeconds(1);
        }
        // Wall-clock times come in order, and so do their instants, except that a time in a gap shifts forward past
        // the real times just after the gap when the gap is shorter than the shift (30 minutes in Australia/Lord_Howe):
        // after a shifted time, the times up to where it shifted to are looked at too.
        LocalDateTime afterLocal = LocalDateTime.ofInstant(after, zone).truncatedTo(ChronoUnit.SECONDS);
        Instant best = null;
        LocalDateTime shiftedTo = null;
        for (int i = 0; i < MAX_CANDIDATES; i++) {
            Optional<LocalDateTime> candidate = nextLocal(local);
            if (candidate.isEmpty()) {
                break;
            }
            local = candidate.get();
            if (shiftedTo != null && !local.isBefore(shiftedTo)) {
                break;
            }
            Instant at = ZonedDateTime.ofLocal(local, zone, null).toInstant();
            LocalDateTime real = LocalDateTime.ofInstant(at, zone);
            // Rather than each time in turn (7,200 of an every-second schedule around an hour's gap), the search skips
            // those that cannot fire later than 'after' and earlier than the best so far: the times of a gap keep their
            // order as they shift, and those just after it, up to 'after', are real ones (the look-back above is the
            // only way to times before 'after').
            ZoneOffsetTransition gap = real.equals(local) ? null : zone.getRules().getTransition(local);
            if (at.isAfter(after) && (best == null || at.isBefore(best))) {
                best = at;
                shiftedTo = real;
                if (gap == null) {
                    break; // a real wall-clock time: the later ones fire later
                }
                local = later(local, later(gap.getDateTimeAfter().minusSeconds(1), afterLocal));
            } else if (gap != null) {
                local = later(local, earlier(afterLocal.minus(gap.getDuration()), gap.getDateTimeAfter().minusSeconds(1)));
            } else {
                local = later(local, afterLocal);
            }
        }
        return Optional.ofNullable(best);
    }

    /** The latest occurrence at or before {@code atOrBefore}, if any. */
    public Optional<Instant> previous(Instant atOrBefore) {
        // The candidates come before this whole second, which follows the one of 'atOrBefore'.
        LocalDateTime local = LocalDateTime.ofInstant(atOrBefore, zone).truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        // In the second pass of an overlap, later wall-clock times of the first pass fired before 'atOrBefore'.
        ZoneOffsetTransition transition = zone.getRules().previousTransition(atOrBefore.plusNanos(1));
        if (transition != null && transition.isOverlap()
                && atOrBefore.isBefore(transition.getInstant().plus(transition.getDuration().abs()))) {
            local = transition.getDateTimeBefore();
        }
        // Going back, a time in a gap shifts forward past the real times just after the gap when the gap is shorter
        // than the shift: once a time just after a gap is found, the times of that gap are looked at too.
        LocalDateTime atOrBeforeLocal = LocalDateTime.ofInstant(atOrBefore, zone).truncatedTo(ChronoUnit.SECONDS);
        Instant best = null;
        LocalDateTime lookBackTo = null;
        for (int i = 0; i < MAX_CANDIDATES; i++) {
            Optional<LocalDateTime> candidate = previousLocal(local);
            if (candidate.isEmpty()) {
                break;
            }
            local = candidate.get();
            if (best != null && local.isBefore(lookBackTo)) {
                break;
            }
            Instant at = ZonedDateTime.ofLocal(local, zone, null).toInstant();
            boolean shifted = !LocalDateTime.ofInstant(at, zone).equals(local);
            if (!at.isAfter(atOrBefore) && (best == null || at.isAfter(best))) {
                boolean first = best == null;
                best = at;
                if (first) {
                    ZoneOffsetTransition gap = zone.getRules().previousTransition(at.plusNanos(1));
                    if (gap == null || !gap.isGap() || !LocalDateTime.ofInstant(at, zone)
                            .isBefore(gap.getDateTimeAfter().plus(gap.getDuration()))) {
                        break; // no gap whose times could shift past it
                    }
                    lookBackTo = gap.getDateTimeBefore();
                    // The real times between the gap and this one fire earlier, and so do the gap's times that shift
                    // to no later than 'atOrBefore': the search goes on from the latest of those (each in turn would
                    // be 3,600 of an every-second schedule in an hour's gap).
                    local = earlier(local, earlier(gap.getDateTimeAfter(),
                            atOrBeforeLocal.minus(gap.getDuration()).plusSeconds(1)));
                    continue;
                }
            }
            if (best != null && shifted) {
                break; // the gap's times before this one shift to earlier still
            }
            if (shifted && at.isAfter(atOrBefore)) {
                // A time of a gap that shifts past 'atOrBefore': so do those of the gap down to where they shift to
                // no later than it.
                ZoneOffsetTransition gap = zone.getRules().getTransition(local);
                local = earlier(local, atOrBeforeLocal.minus(gap.getDuration()).plusSeconds(1));
            }
        }
        return Optional.ofNullable(best);
    }

    private static LocalDateTime later(LocalDateTime a, LocalDateTime b) {
        return a.isAfter(b) ? a : b;
    }

    private static LocalDateTime earlier(LocalDateTime a, LocalDateTime b) {
        return a.isBefore(b) ? a : b;
    }

    /**
     * The first matching wall-clock time after {@code local}. The cron library takes a nearest weekday to the last day
     * of a month that is a Sunday ({@code 31W} on Sunday 31 May 2026) to be that Sunday; Quartz takes the Friday
     * before, as it does not cross into the next month: the times of such a Sunday stand for those of its Friday.
     */
    private Optional<LocalDateTime> nextLocal(LocalDateTime local) {
        Optional<LocalDateTime> found = nextMatch(local);
        if (found.isEmpty() || !isStandInSunday(found.get().toLocalDate())) {
            return found;
        }
        LocalDate sunday = found.get().toLocalDate();
        LocalDate friday = sunday.minusDays(2);
        if (local.toLocalDate().isBefore(friday)) {
            return Optional.of(found.get().minusDays(2));
        }
        if (local.toLocalDate().equals(friday)) {
            Optional<LocalDateTime> later = nextMatch(local.plusDays(2)).filter(t -> t.toLocalDate().equals(sunday));
            if (later.isPresent()) {
                return Optional.of(later.get().minusDays(2));
            }
        }
        return nextLocal(sunday.atTime(23, 59, 59)); // the Sunday itself has none
    }

    /** The last matching wall-clock time before {@code local}, with the Sundays of {@link #nextLocal} moved. */
    private Optional<LocalDateTime> previousLocal(LocalDateTime local) {
        LocalDate sunday = local.toLocalDate().with(TemporalAdjusters.lastDayOfMonth());
        LocalDate friday = sunday.minusDays(2);
        if (isStandInSunday(sunday) && !local.toLocalDate().isBefore(friday)) {
            // The times of the Sunday before the same time on the Friday, or before its end.
            LocalDateTime bound = local.isAfter(friday.plusDays(1).atStartOfDay()) ? friday.plusDays(1).atStartOfDay()
                    : local;
            Optional<LocalDateTime> earlier = previousMatch(bound.plusDays(2)).filter(t -> t.toLocalDate().equals(sunday));
            if (earlier.isPresent()) {
                return Optional.of(earlier.get().minusDays(2));
            }
            local = friday.atStartOfDay();
        }
        Optional<LocalDateTime> found = previousMatch(local);
        // A Sunday of an earlier month: 'local' is after it, so this is its last time.
        return found.map(t -> isStandInSunday(t.toLocalDate()) ? t.minusDays(2) : t);
    }

    /** Whether {@code day} is a Sunday the cron library takes for the nearest weekday to the last day of its month. */
    private boolean isStandInSunday(LocalDate day) {
        return day.getDayOfMonth() == nearestWeekdayTo && day.getDayOfMonth() == day.lengthOfMonth()
                && day.getDayOfWeek() == DayOfWeek.SUNDAY;
    }

    /**
     * The first matching wall-clock time after {@code local} as the cron library finds it. The library throws on a
     * nearest-weekday day a month lacks ({@code 31W} reaching February), from any time that month or before its next
     * match: such a month has no occurrence, as with a plain {@code 31}, so the search goes on from the start of the
     * next month, that start included.
     */
    private Optional<LocalDateTime> nextMatch(LocalDateTime local) {
        for (int month = 0; month < MONTHS_IN_CYCLE; month++) {
            try {
                return executionTime.nextExecution(utc(local)).map(ZonedDateTime::toLocalDateTime);
            } catch (DateTimeException e) {
                LocalDateTime start = local.toLocalDate().withDayOfMonth(1).plusMonths(1).atStartOfDay();
                // Looked at from after it, as the library throws from before it.
                if (start.equals(matchFrom(() -> executionTime.lastExecution(utc(start.plusSeconds(1)))))) {
                    return Optional.of(start);
                }
                local = start;
            }
        }
        return Optional.empty(); // no month in a 400-year cycle of the calendar has the day
    }

    /**
     * The last matching wall-clock time before {@code local}. The cron library steps back into an earlier year wrongly
     * (it misses the last days of that year, {@code 2030-12-30} of Mondays up to 2030 looked for from 2031): an earlier
     * year is searched from its own last second, which the library reads right, each year down to the one it found.
     */
    private Optional<LocalDateTime> previousMatch(LocalDateTime local) {
        Optional<LocalDateTime> found = previousInMonths(local);
        if (found.isPresent() && found.get().getYear() == local.getYear()) {
            return found;
        }
        int lowest;
        if (found.isPresent()) {
            lowest = found.get().getYear();
        } else {
            // None before, as the library sees it: so unless the first occurrence of all comes before 'local'.
            Optional<LocalDateTime> first = nextMatch(LocalDate.of(EARLIEST_YEAR, 1, 1).atStartOfDay().minusSeconds(1));
            if (first.isEmpty() || !first.get().isBefore(local)) {
                return Optional.empty();
            }
            lowest = first.get().getYear();
        }
        for (int year = local.getYear() - 1; year >= lowest; year--) {
            LocalDateTime end = LocalDate.of(year, 12, 31).atTime(23, 59, 59);
            if (matchesLookedAtFromBefore(end)) {
                return Optional.of(end);
            }
            Optional<LocalDateTime> last = previousInMonths(end);
            if (last.isPresent() && last.get().getYear() == year) {
                return last;
            }
        }
        return found;
    }

    /** The last matching wall-clock time before {@code local} as the library finds it, past the months it skips. */
    private Optional<LocalDateTime> previousInMonths(LocalDateTime local) {
        for (int month = 0; month < MONTHS_IN_CYCLE; month++) {
            try {
                return executionTime.lastExecution(utc(local)).map(ZonedDateTime::toLocalDateTime);
            } catch (DateTimeException e) {
                // The last second of the month before.
                LocalDateTime end = local.toLocalDate().withDayOfMonth(1).atStartOfDay().minusSeconds(1);
                if (matchesLookedAtFromBefore(end)) {
                    return Optional.of(end);
                }
                local = end;
            }
        }
        return Optional.empty();
    }

    /**
     * Whether a wall-clock time matches, as the library finds it from the second before: the last second of a month or
     * a year, which its search backwards misses.
     */
    private boolean matchesLookedAtFromBefore(LocalDateTime time) {
        return time.equals(matchFrom(() -> executionTime.nextExecution(utc(time.minusSeconds(1)))));
    }

    /** The cron library works on zoned times: wall-clock times are given to it as UTC ones. */
    private static ZonedDateTime utc(LocalDateTime local) {
        return local.atZone(ZoneOffset.UTC);
    }

    private static LocalDateTime matchFrom(Supplier<Optional<ZonedDateTime>> search) {
        try {
            return search.get().map(ZonedDateTime::toLocalDateTime).orElse(null);
        } catch (DateTimeException e) {
            return null; // went into a month that lacks the day, so found none on this side of it
        }
    }

    /** How the schedule is stored in the {@code cron} hash: {@code misfire|zone|expression}. */
    public String encode() {
        return misfire.name() + "|" + zone.getId() + "|" + expression;
    }

    /**
     * Parses an expression as {@link #of} does, but accepts one that has ended ({@link #next} is then empty): a stored
     * schedule whose last occurrence a worker claims after it passed, or a static one deployed after its year.
     */
    public static CronSchedule ofAnyTime(String expression, String zone, MisfirePolicy misfire) {
        ExecutionTime executionTime = ExecutionTime.forCron(parseSyntax(expression));
        try {
            // The cron library parses some expressions whose times it cannot work out ('1-L' in the day of month):
            // refused here rather than when their first time is asked for.
            executionTime.nextExecution(ZonedDateTime.of(2000, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC));
        } catch (IllegalArgumentException e) {
            throw invalid(expression, e);
        } catch (DateTimeException e) {
            // A nearest weekday to a day the month searched lacks ('31W' reaching June): nextMatch skips such months.
        }
        return new CronSchedule(expression, zone(zone), misfire, executionTime);
    }

    /** Reads a stored schedule back (see {@link #ofAnyTime}). */
    public static CronSchedule decode(String encoded) {
        int a = encoded.indexOf('|');
        int b = encoded.indexOf('|', a + 1);
        return ofAnyTime(encoded.substring(b + 1), encoded.substring(a + 1, b),
                MisfirePolicy.valueOf(encoded.substring(0, a)));
    }

    /**
     * Quartz's definition with years up to {@code lastYear}, as Quartz itself allows (to 2299): the cron library's
     * stops at 2099, so that a schedule with no year field would end there and its job would be removed.
     */
    private static CronDefinition quartzUntil(int lastYear) {
        CronDefinition quartz = CronDefinitionBuilder.instanceDefinitionFor(CronType.QUARTZ);
        List<FieldDefinition> fields = quartz.getFieldDefinitions().stream()
                .sorted(FieldDefinition.createFieldDefinitionComparator())
                .map(field -> field.getFieldName() != CronFieldName.YEAR ? field
                        : new FieldDefinition(CronFieldName.YEAR, FieldConstraintsBuilder.instance()
                                .forField(CronFieldName.YEAR).withValidRange(EARLIEST_YEAR, lastYear).withStrictRange()
                                .createConstraintsInstance(), field.isOptional()))
                .toList();
        return new CronDefinition(fields, quartz.getCronConstraints(), quartz.getCronNicknames(),
                quartz.isMatchDayOfWeekAndDayOfMonth());
    }
}
