package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Each kind of bad input is refused with an IllegalArgumentException naming the argument and the rule, before
 * anything is written, and the job already stored under that id is left as it was.
 */
public class BadInputTest {

    static final String PREFIX = "bad-input";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", PREFIX)
            .overrideConfigKey("quarkus.delayed-jobs.max-payload-size", "1K");

    static final String QUEUE = "orders";
    static final String ID = "order:1";
    static final Instant DUE = Instant.parse("2030-01-01T00:00:00Z");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Inject
    RedisDataSource redis;

    JobInfo stored;
    List<String> keysBefore;

    @BeforeEach
    void storeAJob() {
        scheduler.schedule(QUEUE, ID, "original", DUE, OnConflict.REPLACE);
        stored = scheduler.find(QUEUE, ID).orElseThrow();
        keysBefore = keys();
    }

    @Test
    void blankOrMalformedQueueName() {
        refused("queue must match [A-Za-z0-9._-]{1,64}, was ''", () -> scheduler.schedule("", ID, "x", DUE));
        refused("queue must match [A-Za-z0-9._-]{1,64}, was null", () -> scheduler.schedule(null, ID, "x", DUE));
        refused("queue must match [A-Za-z0-9._-]{1,64}, was 'a b'", () -> scheduler.schedule("a b", ID, "x", DUE));
        refused("queue must match [A-Za-z0-9._-]{1,64}, was '{orders}'",
                () -> scheduler.schedule("{orders}", ID, "x", DUE, OnConflict.REPLACE));
        refused("queue must match", () -> scheduler.schedule("q".repeat(65), ID, "x", DUE));
        refused("queue must match", () -> scheduler.cancel("bad queue", ID));
        refused("queue must match", () -> scheduler.stats("bad queue"));
    }

    @Test
    void blankOrOverlongId() {
        refused("id must not be blank, was ' '", () -> scheduler.schedule(QUEUE, " ", "x", DUE));
        refused("id must not be blank, was null", () -> scheduler.schedule(QUEUE, null, "x", DUE));
        refused("id must be at most 512 bytes in UTF-8, was 513 bytes",
                () -> scheduler.schedule(QUEUE, "x".repeat(513), "x", DUE));
        // 171 three-byte characters are 513 bytes: the rule counts bytes, not characters.
        refused("id must be at most 512 bytes in UTF-8, was 513 bytes",
                () -> scheduler.schedule(QUEUE, "€".repeat(171), "x", DUE));
        refused("id must not be blank", () -> scheduler.cancel(QUEUE, ""));
        refused("id must not be blank", () -> scheduler.find(QUEUE, ""));
    }

    @Test
    void idOrPayloadWithAnUnpairedSurrogate() {
        // UTF-8 cannot encode half a surrogate pair: sent as '?', "order:\uD800" would be the job "order:?" in Redis.
        refused("id must be valid Unicode text, was 'order:\uD800' with an unpaired surrogate at index 6",
                () -> scheduler.schedule(QUEUE, "order:\uD800", "x", DUE));
        refused("id must be valid Unicode text", () -> scheduler.cancel(QUEUE, "order:\uDC00"));
        refused("id must be valid Unicode text", () -> scheduler.find(QUEUE, "\uD800order"));
        refused("payload must be valid Unicode text, its JSON has an unpaired surrogate at index 2",
                () -> scheduler.schedule(QUEUE, ID, "x\uD800y", DUE, OnConflict.REPLACE));
        // A whole pair is fine.
        scheduler.schedule(QUEUE, "order:\uD83D\uDE00", "\uD83D\uDE00", DUE);
        assertEquals("\"\uD83D\uDE00\"", scheduler.find(QUEUE, "order:\uD83D\uDE00").orElseThrow().payload());
        scheduler.cancel(QUEUE, "order:\uD83D\uDE00");
    }

    @Test
    void overSizePayloadLeavesTheStoredJobAlone() {
        refused("payload must be at most 1024 bytes as JSON (quarkus.delayed-jobs.max-payload-size), was 1502 bytes",
                () -> scheduler.schedule(QUEUE, ID, "x".repeat(1500), DUE, OnConflict.REPLACE));
    }

    @Test
    void unserializablePayload() {
        refused("payload must be serializable as JSON by the application's ObjectMapper",
                () -> scheduler.schedule(QUEUE, ID, new Object(), DUE, OnConflict.REPLACE));
    }

    @Test
    void unserializableJsonObjectOrArrayPayload() {
        // JsonObject and JsonArray take any value; one that JSON cannot hold fails their encoding.
        refused("payload must be serializable as JSON",
                () -> scheduler.schedule(QUEUE, ID, new JsonObject().put("x", new Object()), DUE, OnConflict.REPLACE));
        refused("payload must be serializable as JSON",
                () -> scheduler.schedule(QUEUE, ID, new JsonArray().add(new Object()), DUE, OnConflict.REPLACE));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> reactive.schedule(QUEUE, ID, new JsonObject().put("x", new Object()), DUE, OnConflict.REPLACE)
                        .await().atMost(Duration.ofSeconds(5)));
        assertTrue(e.getMessage().startsWith("payload must be serializable as JSON"), e.getMessage());
        assertUnchanged();
    }

    @Test
    void dueTimeOutOfRange() {
        refused("dueAt must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, was 1969-12-31T23:59:59Z",
                () -> scheduler.schedule(QUEUE, ID, "x", Instant.EPOCH.minusSeconds(1), OnConflict.REPLACE));
        refused("dueAt must be between", () -> scheduler.schedule(QUEUE, ID, "x", Instant.MAX, OnConflict.REPLACE));
        refused("dueAt must not be null", () -> scheduler.schedule(QUEUE, ID, "x", (Instant) null, OnConflict.REPLACE));
        refused("dueAt must be between", () -> scheduler.reschedule(QUEUE, ID, Instant.MAX));
    }

    @Test
    void negativeOrHugeDelay() {
        refused("delay must not be negative, was PT-1S",
                () -> scheduler.schedule(QUEUE, ID, "x", Duration.ofSeconds(-1), OnConflict.REPLACE));
        refused("delay must end before 9999-12-30T23:59:59.999Z",
                () -> scheduler.schedule(QUEUE, ID, "x", Duration.ofDays(365L * 9000), OnConflict.REPLACE));
        refused("delay must end before 9999-12-30T23:59:59.999Z",
                () -> scheduler.schedule(QUEUE, ID, "x", Duration.ofSeconds(Long.MAX_VALUE), OnConflict.REPLACE));
        refused("delay must not be null", () -> scheduler.reschedule(QUEUE, ID, (Duration) null));
    }

    @Test
    void aDelayEndingWithinADayOfTheLatestDueTimeIsRefusedBeforeRedisMeasuresIt() {
        // Redis would add the time the call takes to reach it, and a ms begun, to a delay checked against this JVM's
        // clock up to the latest due time itself: the script refused it then, after a new queue's first use was
        // recorded. A queue never used: no key of it may appear.
        Duration msShort = Duration.between(Instant.now(), Instant.parse("9999-12-31T23:59:59.999Z")).minusMillis(1);
        refused("delay must end before 9999-12-30T23:59:59.999Z",
                () -> scheduler.schedule("never-used", ID, "x", msShort, OnConflict.REPLACE));
        refused("delay must end before 9999-12-30T23:59:59.999Z", () -> scheduler.reschedule(QUEUE, ID, msShort));
    }

    @Test
    void aDelayWhoseFractionsOfASecondCarryPastTheLatestEndIsRefused() {
        // A whole second short of the latest end of a delay plus 0.999999999 s ends past it when the clock reads more than
        // .999000001 s: the two fractions carry a second. Spin (no sleep: the window is the last half of that ms)
        // until the clock is there, so that the check reads it in the same second; three times, as a first call may
        // take long enough to reach the next second.
        for (int i = 0; i < 3; i++) {
            Instant now;
            do {
                now = Instant.now();
            } while (now.getNano() < 999_100_000 || now.getNano() > 999_500_000);
            long room = Instant.parse("9999-12-30T23:59:59.999Z").getEpochSecond() - now.getEpochSecond();
            Duration delay = Duration.ofSeconds(room - 1, 999_999_999);
            refused("delay must end before 9999-12-30T23:59:59.999Z",
                    () -> scheduler.schedule(QUEUE, ID, "x", delay, OnConflict.REPLACE));
            refused("delay must end before 9999-12-30T23:59:59.999Z", () -> scheduler.reschedule(QUEUE, ID, delay));
        }
    }

    @Test
    void missingConflictPolicyOrBadLimit() {
        refused("onConflict must not be null", () -> scheduler.schedule(QUEUE, ID, "x", DUE, null));
        refused("limit must be between 1 and 10000, was 0", () -> scheduler.deadLetters(QUEUE, 0));
    }

    @Test
    void theReactiveSchedulerFailsTheUniInstead() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> reactive.schedule(QUEUE, "", "x", DUE).await().atMost(Duration.ofSeconds(5)));
        assertEquals("id must not be blank, was ''", e.getMessage());
        assertUnchanged();
    }

    private void refused(String message, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().startsWith(message), () -> "message was: " + e.getMessage());
        assertUnchanged();
    }

    private void assertUnchanged() {
        assertEquals(keysBefore, keys());
        assertEquals(stored, scheduler.find(QUEUE, ID).orElseThrow());
    }

    private List<String> keys() {
        return redis.key().keys(PREFIX + ":*").stream().sorted().toList();
    }
}
