package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.MisfirePolicy;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Recurring jobs in one instance: registration, static schedules, misfire policies, and failures that never stop a
 * schedule.
 */
public class RecurringTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "recurring")
            .overrideConfigKey("quarkus.delayed-jobs.catch-up-limit", "2")
            .overrideConfigKey("quarkus.delayed-jobs.queues.retried.backoff.initial", "100ms")
            .overrideConfigKey("quarkus.delayed-jobs.queues.last.max-attempts", "1")
            .overrideConfigKey("ticker.cron", "* * * * * ?");

    static final Map<String, List<JobContext>> deliveries = new ConcurrentHashMap<>();

    static void record(JobContext context) {
        deliveries.computeIfAbsent(context.queue(), q -> new CopyOnWriteArrayList<>()).add(context);
    }

    static List<JobContext> deliveries(String queue) {
        return deliveries.getOrDefault(queue, List.of());
    }

    static class Handlers {
        @Delayed(value = "ticker", cron = "${ticker.cron}")
        void tick(JobContext context) {
            record(context);
        }

        @Delayed("fire-once")
        void fireOnce(JobContext context) {
            record(context);
        }

        @Delayed("skip")
        void skip(JobContext context) {
            record(context);
        }

        @Delayed("catch-up")
        void catchUp(JobContext context) {
            record(context);
        }

        @Delayed("failing")
        void failing(JobContext context) {
            record(context);
            throw new IllegalStateException("always fails");
        }

        @Delayed("unreadable")
        void unreadable(JobContext context) {
            record(context);
        }

        @Delayed("last")
        void last(JobContext context) {
            throw new IllegalStateException("the last occurrence fails");
        }

        @Delayed("retried")
        void retried(JobContext context) {
            record(context);
            if (context.attempt() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void registeringAgainKeepsTheScheduleAndAChangeReplacesIt() {
        ZoneId paris = ZoneId.of("Europe/Paris");
        assertEquals(ScheduleResult.CREATED, scheduler.recurring("reports", "report:7", "0 9 * * MON", paris, "r7"));
        assertEquals(ScheduleResult.KEPT, scheduler.recurring("reports", "report:7", "0 9 * * MON", paris, "r7"));

        JobInfo info = scheduler.find("reports", "report:7").orElseThrow();
        assertEquals("0 9 * * MON", info.cron());
        assertEquals(JobInfo.State.PENDING, info.state());
        Instant nextMonday = ZonedDateTime.now(paris).with(TemporalAdjusters.next(DayOfWeek.MONDAY))
                .truncatedTo(ChronoUnit.DAYS).withHour(9).toInstant();
        Instant expected = ZonedDateTime.now(paris).getDayOfWeek() == DayOfWeek.MONDAY
                && ZonedDateTime.now(paris).getHour() < 9
                        ? ZonedDateTime.now(paris).truncatedTo(ChronoUnit.DAYS).withHour(9).toInstant()
                        : nextMonday;
        assertEquals(expected, info.dueAt());

        assertEquals(ScheduleResult.REPLACED, scheduler.recurring("reports", "report:7", "0 10 * * MON", paris, "r7"));
        assertEquals(expected.plus(1, ChronoUnit.HOURS), scheduler.find("reports", "report:7").orElseThrow().dueAt());
        assertEquals(ScheduleResult.REPLACED,
                scheduler.recurring("reports", "report:7", "0 10 * * MON", paris, "other payload"));

        assertTrue(scheduler.cancel("reports", "report:7"));
        assertEquals(Optional.empty(), scheduler.find("reports", "report:7"));
    }

    @Test
    void theLastOccurrenceOfAnEndedScheduleGoesToTheDeadLettersOnceGivenUp() {
        ZonedDateTime at = ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(2).truncatedTo(ChronoUnit.SECONDS);
        String cron = at.getSecond() + " " + at.getMinute() + " " + at.getHour() + " " + at.getDayOfMonth() + " "
                + at.getMonthValue() + " ? " + at.getYear();
        assertEquals(ScheduleResult.CREATED, scheduler.recurring("last", "once", cron, ZoneOffset.UTC, "p"));

        await().atMost(Duration.ofSeconds(15)).until(() -> !scheduler.deadLetters("last", 10).isEmpty());
        JobInfo dead = scheduler.deadLetters("last", 10).get(0);
        assertEquals("once", dead.id());
        assertEquals(JobInfo.State.DEAD, dead.state());
        assertEquals(cron, dead.cron());
        assertEquals(at.toInstant(), dead.dueAt());
        assertTrue(dead.lastError().contains("the last occurrence fails"), dead.lastError());
    }

    @Test
    void invalidSchedulesAreRefusedBeforeAnythingIsWritten() {
        IllegalArgumentException cron = assertThrows(IllegalArgumentException.class,
                () -> scheduler.recurring("reports", "bad", "every monday", ZoneOffset.UTC, null));
        assertTrue(cron.getMessage().startsWith("cron must have 5 (Unix) or 6 or 7 (Quartz) fields"), cron.getMessage());
        IllegalArgumentException zone = assertThrows(IllegalArgumentException.class,
                () -> scheduler.recurring("reports", "bad", "0 9 * * MON", null, null));
        assertEquals("zone must not be null", zone.getMessage());
        assertEquals(Optional.empty(), scheduler.find("reports", "bad"));
    }

    /** A Quartz expression for the one wall-clock time of {@code at}, its year included. */
    static String onlyAt(ZonedDateTime at) {
        return at.getSecond() + " " + at.getMinute() + " " + at.getHour() + " " + at.getDayOfMonth() + " "
                + at.getMonthValue() + " ? " + at.getYear();
    }

    @Test
    void whetherAYearLimitedScheduleHasAnOccurrenceLeftIsReadInItsZone() {
        // An hour from now, as a wall-clock time twelve hours behind UTC: read as UTC, it would have passed.
        ZoneId west = ZoneId.of("Etc/GMT+12");
        ZonedDateTime later = ZonedDateTime.now(west).plusHours(1).truncatedTo(ChronoUnit.SECONDS);
        assertEquals(ScheduleResult.CREATED, scheduler.recurring("zoned", "west", onlyAt(later), west, "w"));
        assertEquals(later.toInstant(), scheduler.find("zoned", "west").orElseThrow().dueAt());

        // An hour ago, as a wall-clock time fourteen hours ahead of UTC: read as UTC, it would still come.
        ZoneId east = ZoneId.of("Etc/GMT-14");
        String passed = onlyAt(ZonedDateTime.now(east).minusHours(1).truncatedTo(ChronoUnit.SECONDS));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> scheduler.recurring("zoned-east", "east", passed, east, "e"));
        assertEquals("cron must match some time after now, '" + passed + "' matches none", refused.getMessage());
        // Refused before anything is written, not even the queue's shard count.
        assertEquals(":0", RedisTestServer.command(RedisTestServer.sharedUrl(), "EXISTS", "recurring:{zoned-east}:shards"));
    }

    @Test
    void aStaticScheduleFiresEverySecondOncePerOccurrence() {
        await().atMost(Duration.ofSeconds(15)).until(() -> deliveries("ticker").size() >= 4);
        List<Instant> due = deliveries("ticker").stream().map(JobContext::dueAt).toList();
        for (int i = 1; i < due.size(); i++) {
            // Whole seconds apart, and never the same twice. More than one when the JVM stalled for longer than a
            // second (a GC pause, a loaded machine): FIRE_ONCE, the default, runs the last missed occurrence only.
            Duration gap = Duration.between(due.get(i - 1), due.get(i));
            assertTrue(gap.toSeconds() >= 1 && gap.toMillisPart() == 0, due.toString());
        }
        assertEquals(0, due.get(0).getNano(), due.toString());
        JobInfo info = scheduler.find("ticker", "ticker").orElseThrow();
        assertEquals("* * * * * ?", info.cron());
    }

    /** Arms an hourly schedule, then moves its armed occurrence three hours back, as if every instance was down. */
    Instant missThreeHours(String queue, MisfirePolicy policy) {
        scheduler.recurring(queue, "hourly", "0 * * * *", ZoneOffset.UTC, null, policy);
        Instant hour = Instant.now().truncatedTo(ChronoUnit.HOURS);
        assertTrue(scheduler.reschedule(queue, "hourly", hour.minus(3, ChronoUnit.HOURS)));
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find(queue, "hourly").orElseThrow().dueAt()
                .equals(hour.plus(1, ChronoUnit.HOURS)));
        return hour;
    }

    @Test
    void fireOnceRunsOnceForAllMissedOccurrences() {
        Instant hour = missThreeHours("fire-once", MisfirePolicy.FIRE_ONCE);
        assertEquals(List.of(hour.minus(3, ChronoUnit.HOURS)),
                deliveries("fire-once").stream().map(JobContext::dueAt).toList());
    }

    @Test
    void skipRunsNoneOfTheMissedOccurrences() {
        missThreeHours("skip", MisfirePolicy.SKIP);
        assertEquals(List.of(), deliveries("skip"));
    }

    @Test
    void catchUpRunsTheMostRecentMissedOccurrencesUpToTheLimit() {
        Instant hour = missThreeHours("catch-up", MisfirePolicy.CATCH_UP);
        assertEquals(List.of(hour.minus(1, ChronoUnit.HOURS), hour),
                deliveries("catch-up").stream().map(JobContext::dueAt).toList());
    }

    @Test
    void aFailingScheduleGoesOnWithItsNextOccurrences() {
        scheduler.recurring("failing", "every-second", "* * * * * ?", ZoneOffset.UTC, null);
        await().atMost(Duration.ofSeconds(15)).until(() -> deliveries("failing").stream().map(JobContext::dueAt)
                .distinct().count() >= 3);
        JobInfo info = scheduler.find("failing", "every-second").orElseThrow();
        assertEquals("java.lang.IllegalStateException: always fails", info.lastError());
        assertEquals(0, scheduler.stats("failing").dead());
        assertTrue(scheduler.cancel("failing", "every-second"));
    }

    @Test
    void aFailedOccurrenceIsRetriedBeforeTheNextOne() {
        scheduler.recurring("retried", "hourly", "0 * * * *", ZoneOffset.UTC, null);
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        assertTrue(scheduler.reschedule("retried", "hourly", now));
        Instant nextHour = now.truncatedTo(ChronoUnit.HOURS).plus(1, ChronoUnit.HOURS);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("retried", "hourly").orElseThrow().dueAt()
                .equals(nextHour));
        List<JobContext> runs = deliveries("retried");
        assertEquals(List.of(1, 2), runs.stream().map(JobContext::attempt).toList());
        assertEquals(List.of(now, now), runs.stream().map(JobContext::dueAt).toList());
        JobInfo info = scheduler.find("retried", "hourly").orElseThrow();
        assertEquals(0, info.attempts());
        assertNull(info.lastError());
    }

    @Test
    void aScheduleThatCannotBeReadRunsOnceAsAPlainJobAndLeavesNothingBehind() {
        scheduler.recurring("unreadable", "broken", "0 * * * *", ZoneOffset.UTC, null);
        String url = RedisTestServer.sharedUrl();
        String cron = "recurring:{unreadable:" + QueueKeys.shardOf("broken", 8) + "}:cron";
        assertEquals(":0", RedisTestServer.command(url, "HSET", cron, "broken", "NO|SUCH|SCHEDULE"));
        assertTrue(scheduler.reschedule("unreadable", "broken", Instant.now()));
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("unreadable", "broken").isEmpty());
        assertEquals(1, deliveries("unreadable").size());
        assertEquals(":0", RedisTestServer.command(url, "HEXISTS", cron, "broken"));
    }
}
