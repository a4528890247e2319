package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.VertxFutures.get;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Ack;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.RetryOutcome;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.redis.Script;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.mutiny.redis.client.Response;

/**
 * What the scripts refuse or ignore whoever calls them (the Java engine never sends such calls; producers in other
 * languages may): more than a call may carry for a shard, due times past 9999, the empty token of a dead letter, an
 * acknowledgement given twice, arguments that are not numbers where numbers belong, arguments or keys missing, ids
 * that are blank or not UTF-8. Each leaves what is stored as it was.
 */
public class ScriptGuardsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, VertxFutures.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "guards");

    static final Duration WAIT = Duration.ofSeconds(10);
    static final String LATEST_DUE = "253402300799999"; // 9999-12-31T23:59:59.999Z
    static final String PAST_LATEST = "36028797018963968"; // 2^55 ms: 256 times it overflows a 64-bit score

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Inject
    RedisDataSource redis;

    static QueueSettings withLease(Duration lease) {
        return new QueueSettings(8, lease, 32, 16, Duration.ZERO, Duration.ZERO, 10, Duration.ofSeconds(1),
                Duration.ofHours(1));
    }

    /** Schedules {@code n} jobs due now, all of the shard of {@code first} (its id included); returns their ids. */
    List<String> dueNowOnOneShard(String queue, QueueKeys keys, String first, int n) {
        List<String> ids = new ArrayList<>(List.of(first));
        for (int i = 0; ids.size() < n; i++) {
            if (keys.shardOf(first + "-" + i) == keys.shardOf(first)) {
                ids.add(first + "-" + i);
            }
        }
        for (String id : ids) {
            scheduler.schedule(queue, id, "p", Duration.ZERO);
        }
        return ids;
    }

    /** Runs a script by its text on the nine keys of {@code shard}; an error reply throws. */
    String eval(Script script, QueueKeys keys, int shard, List<String> args) {
        List<String> all = new ArrayList<>(List.of(script.text(), "9"));
        all.addAll(keys.shard(shard));
        all.addAll(args);
        return String.valueOf(redis.execute("EVAL", all.toArray(String[]::new)));
    }

    static List<String> job(String id, String due, String kind) {
        return List.of(id, "\"p\"", due, kind, "KEEP", "");
    }

    static void assertRefused(String message, Runnable call) {
        RuntimeException e = assertThrows(RuntimeException.class, call::run);
        assertTrue(String.valueOf(e.getMessage()).contains(message), e.getMessage());
    }

    @Test
    void aScheduleOfMoreJobsOfAShardThanACallMayCarryStoresNone() {
        String queue = "too-many";
        QueueKeys keys = keysOf(queue);
        int shard = 0;
        List<String> args = new ArrayList<>(List.of(keys.wakeChannel(), "0"));
        for (int i = 0; i <= JobStore.MOST_PER_SHARD; i++) {
            args.addAll(job("many-" + i, "60000", "in"));
        }
        assertRefused("ERR schedule takes at most 1000 jobs per shard in one call",
                () -> eval(Script.SCHEDULE, keys, shard, args));
        assertEquals(0, scheduler.stats(queue).pending());

        // One job fewer is one call's worth.
        List<String> fewer = args.subList(0, args.size() - 6);
        eval(Script.SCHEDULE, keys, shard, fewer);
        assertEquals(JobStore.MOST_PER_SHARD, scheduler.stats(queue).pending());
    }

    @Test
    void aClaimOfMoreJobsOfAShardThanACallMayCarryTakesNone() throws Exception {
        String queue = "claim-too-many";
        QueueKeys keys = keysOf(queue);
        List<String> ids = dueNowOnOneShard(queue, keys, "due", 5);
        int shard = keys.shardOf(ids.get(0));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> get(store.claim(keys, shard, 10, 1000, JobStore.MOST_PER_SHARD - 9,
                        withLease(Duration.ofSeconds(30)), List.of())));
        assertTrue(String.valueOf(e.getCause().getMessage()).contains("claim takes at most 1000 jobs"),
                e.getCause().getMessage());
        for (String id : ids) {
            assertEquals(Optional.of(JobInfo.State.PENDING), scheduler.find(queue, id).map(JobInfo::state), id);
        }
        // Within the bound, the same claim takes them.
        assertEquals(5, get(store.claim(keys, shard, 10, 1000, JobStore.MOST_PER_SHARD - 10,
                withLease(Duration.ofSeconds(30)), List.of())).jobs().size());
    }

    @Test
    void dueTimesPastTheLatestAreRefusedAndLeaveTheStoredJobAlone() {
        String queue = "far-future";
        QueueKeys keys = keysOf(queue);
        int shard = keys.shardOf("far");
        String wake = keys.wakeChannel();
        String bad = "ERR due must be a whole number of ms, not negative, followed by at or in, and reach no later"
                + " than 253402300799999";
        assertRefused(bad, () -> eval(Script.SCHEDULE, keys, shard, concat(List.of(wake, "" + shard),
                job("far", PAST_LATEST, "at"))));
        assertRefused(bad, () -> eval(Script.SCHEDULE, keys, shard, concat(List.of(wake, "" + shard),
                job("far", "253402300800000", "at"))));
        // A delay counts from now: the latest time as a delay reaches past it.
        assertRefused(bad, () -> eval(Script.SCHEDULE, keys, shard, concat(List.of(wake, "" + shard),
                job("far", LATEST_DUE, "in"))));
        assertEquals(Optional.empty(), scheduler.find(queue, "far"));

        eval(Script.SCHEDULE, keys, shard, concat(List.of(wake, "" + shard), job("far", LATEST_DUE, "at")));
        Instant latest = Instant.parse("9999-12-31T23:59:59.999Z");
        assertEquals(Optional.of(latest), scheduler.find(queue, "far").map(JobInfo::dueAt));

        assertRefused(bad, () -> eval(Script.RESCHEDULE, keys, shard, List.of("far", PAST_LATEST, "at", wake,
                "" + shard)));
        assertRefused("ERR first occurrence must be a whole number of ms, not negative, no later than",
                () -> eval(Script.RECURRING, keys, shard, List.of("far", "\"p\"", "SKIP|UTC|0 3 * * *", PAST_LATEST,
                        wake, "" + shard)));
        JobInfo kept = scheduler.find(queue, "far").orElseThrow();
        assertEquals(latest, kept.dueAt());
        assertEquals(null, kept.cron());
        // Nothing claims it: it is not due before the year 10000.
        assertEquals(0, scheduler.stats(queue).running());
    }

    @Test
    void theEmptyTokenOfADeadLetterFencesNothing() throws Exception {
        String queue = "dead-token";
        QueueKeys keys = keysOf(queue);
        scheduler.schedule(queue, "dead", "p", Duration.ZERO);
        int shard = keys.shardOf("dead");
        Claimed claimed = get(store.claim(keys, shard, 10, 0, 0, withLease(Duration.ofSeconds(30)), List.of()))
                .jobs().get(0);
        assertEquals(RetryOutcome.DEAD, get(store.retry(keys, shard, "dead", claimed.token(), 0, "unreadable", true,
                null, withLease(Duration.ofSeconds(30)))));

        assertEquals(0, get(store.ack(keys, shard, List.of(new Ack("dead", "", null)))));
        assertEquals(0, get(store.release(keys, shard, List.<String[]> of(new String[] { "dead", "" }))));
        assertEquals(RetryOutcome.STALE, get(store.retry(keys, shard, "dead", "", 0, "again", false, null,
                withLease(Duration.ofSeconds(30)))));
        assertEquals(List.of(""), get(store.renew(keys, shard, List.<String[]> of(new String[] { "dead", "" }),
                Duration.ofSeconds(30))));

        JobInfo dead = scheduler.find(queue, "dead").orElseThrow();
        assertEquals(JobInfo.State.DEAD, dead.state());
        assertEquals("\"p\"", dead.payload());
        assertTrue(dead.lastError().contains("unreadable"), dead.lastError());
        assertEquals(List.of("dead"), scheduler.deadLetters(queue, 10).stream().map(JobInfo::id).toList());
        assertEquals(0, scheduler.stats(queue).pending());
    }

    @Test
    void aDeliveryAcknowledgedTwiceInOneCallLeavesTheRestOfItsClaimLeased() throws Exception {
        String queue = "twice";
        QueueKeys keys = keysOf(queue);
        List<String> ids = dueNowOnOneShard(queue, keys, "twice", 2);
        int shard = keys.shardOf(ids.get(0));
        List<Claimed> claimed = get(store.claim(keys, shard, 10, 0, 0, withLease(Duration.ofSeconds(1)), List.of()))
                .jobs();
        assertEquals(2, claimed.size());
        Claimed first = claimed.get(0);
        Ack ack = new Ack(first.id(), first.token(), null);
        assertEquals(1, get(store.ack(keys, shard, List.of(ack, ack))));

        // The other job's worker "dies": its claim's lease runs out, and the job is claimed again.
        Claimed other = claimed.get(1);
        Claimed again = await().atMost(WAIT).until(
                () -> get(store.claim(keys, shard, 10, 0, 0, withLease(Duration.ofSeconds(30)), List.of())).jobs(),
                jobs -> !jobs.isEmpty()).get(0);
        assertEquals(other.id(), again.id());
        assertEquals(2, again.attempt());
    }

    @Test
    void anAckWithABadNextDueAcknowledgesNone() throws Exception {
        String queue = "bad-ack";
        QueueKeys keys = keysOf(queue);
        List<String> ids = dueNowOnOneShard(queue, keys, "acked", 2);
        int shard = keys.shardOf(ids.get(0));
        List<Claimed> claimed = get(store.claim(keys, shard, 10, 0, 0, withLease(Duration.ofSeconds(30)), List.of()))
                .jobs();
        assertEquals(2, claimed.size());
        Claimed first = claimed.get(0);
        Claimed second = claimed.get(1);
        // The first delivery's next due is fine; the second's is not a number: the first is not re-armed either.
        assertRefused("ERR next due of an acknowledged job must be empty or a whole number of ms",
                () -> eval(Script.ACK, keys, shard, List.of(keys.wakeChannel(), "" + shard,
                        first.id(), first.token(), "123", second.id(), second.token(), "soon")));
        assertRefused("ERR deliveries to acknowledge come as triples",
                () -> eval(Script.ACK, keys, shard, List.of(keys.wakeChannel(), "" + shard,
                        first.id(), first.token(), "", second.id(), second.token())));
        for (String id : ids) {
            assertEquals(Optional.of(JobInfo.State.RUNNING), scheduler.find(queue, id).map(JobInfo::state), id);
        }
        assertEquals(0, scheduler.stats(queue).pending());

        assertEquals(2, get(store.ack(keys, shard, List.of(new Ack(first.id(), first.token(), null),
                new Ack(second.id(), second.token(), null)))));
        assertEquals(Optional.empty(), scheduler.find(queue, first.id()));
        assertEquals(Optional.empty(), scheduler.find(queue, second.id()));
    }

    @Test
    void aClaimOfTwoShardsWithABadSecondPartTakesNothing() {
        String queue = "bad-claim";
        QueueKeys keys = keysOf(queue);
        List<String> ids = dueNowOnOneShard(queue, keys, "claimed", 3);
        int shard = keys.shardOf(ids.get(0));
        int other = (shard + 1) % keys.shards();
        List<String> call = new ArrayList<>(List.of(Script.CLAIM.text(), "18"));
        call.addAll(keys.shard(shard));
        call.addAll(keys.shard(other));
        // Lease, max attempts, dead-letter share, retention, wake channel; then each shard: index, jobs due now, how
        // far ahead (ms), jobs ahead, acknowledgements.
        call.addAll(List.of("30000", "10", "1000", "3600000", keys.wakeChannel()));
        call.addAll(List.of("" + shard, "10", "0", "0", "0"));
        List<String> badOther = new ArrayList<>(call);
        badOther.addAll(List.of("" + other, "10", "soon", "0", "0"));
        assertRefused("ERR claim takes five numbers per shard",
                () -> redis.execute("EVAL", badOther.toArray(String[]::new)));
        List<String> badAck = new ArrayList<>(call);
        badAck.addAll(List.of("" + other, "10", "0", "0", "1", "someone", "1.1", "soon"));
        assertRefused("ERR next due of an acknowledged job must be empty or a whole number of ms",
                () -> redis.execute("EVAL", badAck.toArray(String[]::new)));
        List<String> badLease = new ArrayList<>(call);
        badLease.set(2 + 18, "long");
        badLease.addAll(List.of("" + other, "10", "0", "0", "0"));
        assertRefused("ERR claim takes a lease, max attempts, a dead-letter share and a retention as numbers",
                () -> redis.execute("EVAL", badLease.toArray(String[]::new)));
        for (String id : ids) {
            assertEquals(Optional.of(JobInfo.State.PENDING), scheduler.find(queue, id).map(JobInfo::state), id);
        }
        assertEquals(0, scheduler.stats(queue).running());
    }

    @Test
    void aCallOfOneJobWithoutAllItsKeysAndArgumentsIsRefusedBeforeItWrites() {
        String queue = "missing-arguments";
        QueueKeys keys = keysOf(queue);
        scheduler.schedule(queue, "kept", "p", Duration.ofHours(1));
        Instant due = scheduler.find(queue, "kept").orElseThrow().dueAt();
        int shard = keys.shardOf("kept");
        // Without the wake channel and shard: before, the job was moved, then the script failed on the wake-up.
        assertRefused("ERR reschedule takes the nine keys of a shard and 5 arguments, was given 9 and 3",
                () -> eval(Script.RESCHEDULE, keys, shard, List.of("kept", "60000", "in")));
        assertRefused("ERR cancel takes the nine keys of a shard and 3 arguments, was given 9 and 1",
                () -> eval(Script.CANCEL, keys, shard, List.of("kept")));
        List<String> eightKeys = new ArrayList<>(List.of(Script.CANCEL.text(), "8"));
        eightKeys.addAll(keys.shard(shard).subList(0, 8));
        eightKeys.addAll(List.of("kept", keys.wakeChannel(), "" + shard));
        assertRefused("ERR cancel takes the nine keys of a shard and 3 arguments, was given 8 and 3",
                () -> redis.execute("EVAL", eightKeys.toArray(String[]::new)));
        assertRefused("ERR find takes the nine keys of a shard and 1 argument, was given 9 and 0",
                () -> eval(Script.FIND, keys, shard, List.of()));
        assertEquals(Optional.of(due), scheduler.find(queue, "kept").map(JobInfo::dueAt));
    }

    @Test
    void aListOfDeadLettersTakesItsLimitAsAWholeNumberFromOneTo10000() {
        String queue = "dead-letter-limits";
        QueueKeys keys = keysOf(queue);
        String refused = "ERR most dead letters to list must be a whole number from 1 to 10000";
        // Before, no limit failed inside Lua ('attempt to perform arithmetic on a nil value'), and 0 or less listed
        // all but the last few.
        assertRefused("ERR dead-letters takes the nine keys of a shard and 1 argument, was given 9 and 0",
                () -> eval(Script.DEAD_LETTERS, keys, 0, List.of()));
        for (String limit : List.of("abc", "0", "-2", "1.5", "10001")) {
            assertRefused(refused, () -> eval(Script.DEAD_LETTERS, keys, 0, List.of(limit)));
        }
        assertEquals("[]", eval(Script.DEAD_LETTERS, keys, 0, List.of("10000")));
    }

    @Test
    void findOfARunningJobWhoseClaimIsGoneAnswersAllFiveElements() {
        String queue = "claim-gone";
        QueueKeys keys = keysOf(queue);
        int shard = keys.shardOf("orphan");
        // The state a job whose id held the byte 0xFF ends in: an envelope whose claim (number 99) is in no 'run'.
        redis.execute("HSET", keys.shard(shard).get(2), "orphan", "1798794000000|1|99.1|\"p\"");
        List<String> find = new ArrayList<>(List.of(Script.FIND.text(), "9"));
        find.addAll(keys.shard(shard));
        find.add("orphan");
        Response reply = redis.execute("EVAL", find.toArray(String[]::new));
        // Before, the missing lease ended the array after four elements.
        assertEquals(5, reply.size());
        assertEquals("RUNNING", reply.get(0).toString());
        assertNull(reply.get(4));
        assertEquals(Optional.of(JobInfo.State.RUNNING), scheduler.find(queue, "orphan").map(JobInfo::state));
    }

    @Test
    void idsThatAreBlankOrNotUtf8AreRefusedBeforeAnythingIsWritten() {
        String queue = "odd-ids";
        QueueKeys keys = keysOf(queue);
        String wake = keys.wakeChannel();
        assertRefused("ERR id must not be blank",
                () -> eval(Script.SCHEDULE, keys, 0, concat(List.of(wake, "0"), job(" \t", "0", "in"))));
        assertRefused("ERR id must not be blank", () -> eval(Script.RECURRING, keys, 0,
                List.of(" ", "null", "SKIP|UTC|0 3 * * *", "1798794000000", wake, "0")));
        // Java could not give such an id back byte for byte: its job would run but never be acknowledged.
        byte[][] notUtf8 = { { 'c', 'a', 'f', (byte) 0xE9 }, // Latin-1
                { 'a', (byte) 0xC0, (byte) 0xAF }, // an overlong '/'
                { (byte) 0xED, (byte) 0xA0, (byte) 0x80 }, // a surrogate
                { (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80 }, // past U+10FFFF
                { 'x', (byte) 0xE2, (byte) 0x82 }, // cut short
                { 'x', (byte) 0xFF } }; // the byte that joins a claim's ids
        for (byte[] id : notUtf8) {
            List<byte[]> args = new ArrayList<>();
            for (String arg : List.of("EVAL", Script.SCHEDULE.text(), "9")) {
                args.add(arg.getBytes(StandardCharsets.UTF_8));
            }
            for (String key : keys.shard(0)) {
                args.add(key.getBytes(StandardCharsets.UTF_8));
            }
            args.add(wake.getBytes(StandardCharsets.UTF_8));
            args.add("0".getBytes(StandardCharsets.UTF_8));
            args.add(id);
            for (String arg : List.of("\"p\"", "0", "in", "KEEP", "")) {
                args.add(arg.getBytes(StandardCharsets.UTF_8));
            }
            assertEquals("-ERR id must be UTF-8", RedisTestServer.command(RedisTestServer.sharedUrl(),
                    args.toArray(byte[][]::new)), HexFormat.of().formatHex(id));
        }
        assertEquals(0, scheduler.stats(queue).pending());
        // Text of every length in UTF-8 is stored: 2, 3 and 4 bytes, U+10FFFF the last.
        String text = "caf\u00e9 \u20ac \uD83D\uDE00 \uDBFF\uDFFF";
        eval(Script.SCHEDULE, keys, keys.shardOf(text), concat(List.of(wake, "" + keys.shardOf(text)),
                job(text, "60000", "in")));
        assertEquals(Optional.of(JobInfo.State.PENDING), scheduler.find(queue, text).map(JobInfo::state));
    }

    QueueKeys keysOf(String queue) {
        try {
            return get(store.queue(queue));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
