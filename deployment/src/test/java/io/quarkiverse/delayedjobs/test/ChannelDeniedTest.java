package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The documented least-privilege user, less a permission on the wake channels. Redis keeps what a script wrote before
 * a command it refused: a schedule whose PUBLISH was refused failed its caller with its job stored, which then ran. The
 * scripts now ask the ACL first; the readiness check names what the user may not do; and with the wake subscription
 * refused, the workers look at their shards each poll interval.
 */
public class ChannelDeniedTest {

    static final String URL = RedisTestServer.sharedUrl("channel-denied");
    static final String USER = "channel-denied";
    static final String PREFIX = "channel-denied";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, HealthEndpoints.class))
            .overrideConfigKey("quarkus.redis.hosts", asUser(URL))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", PREFIX)
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "2s");

    static class Handler {
        static final Map<String, Instant> ran = new ConcurrentHashMap<>();
        static final Map<String, List<Instant>> runs = new ConcurrentHashMap<>();

        @Delayed("chan")
        void run(String payload, JobContext context) {
            ran.put(context.id(), Instant.now());
            runs.computeIfAbsent(context.id(), id -> new CopyOnWriteArrayList<>()).add(Instant.now());
        }
    }

    /** The user of operations.adoc for this prefix, with its channels. */
    private static String asUser(String url) {
        allow(url, "&" + PREFIX + ":*", "+subscribe");
        return url.replace("redis://", "redis://" + USER + ":secret@");
    }

    private static void allow(String url, String... more) {
        String[] base = { "ACL", "SETUSER", USER, "reset", "on", ">secret", "~" + PREFIX + ":*", "-@all", "+evalsha",
                "+eval", "+get", "+set", "+publish", "+time", "+hello", "+exists", "+hdel", "+hget", "+hincrby", "+hlen",
                "+hmget", "+hset", "+hsetnx", "+incr", "+incrby", "+zadd", "+zcard", "+zcount", "+zrange",
                "+zrangebyscore", "+zrem", "+zremrangebyrank", "+zrevrange", "+zscore", "+ping" };
        String[] args = new String[base.length + more.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(more, 0, args, base.length, more.length);
        assertEquals("+OK", RedisTestServer.command(url, args));
    }

    @AfterEach
    void allowAll() {
        allow(URL, "&" + PREFIX + ":*", "+subscribe");
        await().atMost(Duration.ofSeconds(10)).until(() -> HealthEndpoints.get(HealthEndpoints.READY).status() == 200);
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aScheduleWhoseWakeUpTheAclRefusesStoresNothingAndReadinessSaysWhy() {
        allow(URL, "+subscribe"); // no channel
        DelayedJobsException refused = assertThrows(DelayedJobsException.class,
                () -> scheduler.schedule("chan", "refused", "x", Duration.ofMillis(200)));
        assertTrue(refused.getMessage().contains("may not publish on the wake channel " + PREFIX + ":{chan"),
                refused.getMessage());
        assertTrue(refused.getMessage().contains("nothing was written"), refused.getMessage());
        assertTrue(scheduler.find("chan", "refused").isEmpty(), "a refused schedule stored its job");

        HealthEndpoints.Answer ready = HealthEndpoints.get(HealthEndpoints.READY);
        assertEquals(503, ready.status(), ready.body());
        assertTrue(ready.body().contains("may not run: PUBLISH " + PREFIX + ":{chan"), ready.body());
        assertTrue(ready.body().contains("SUBSCRIBE " + PREFIX + ":{chan"), ready.body());
    }

    @Test
    void anAclRefusalSaysWhatTheUserLacks() {
        // Keys of another prefix only: Redis does not say which key.
        assertEquals("+OK", RedisTestServer.command(URL, "ACL", "SETUSER", USER, "resetkeys", "~elsewhere:*"));
        DelayedJobsException keys = assertThrows(DelayedJobsException.class,
                () -> scheduler.schedule("chan-" + System.nanoTime(), "k", "x", Duration.ofMinutes(1)));
        assertTrue(keys.getMessage().contains("(the Redis user needs the keys of the key prefix: ~" + PREFIX + ":*)"),
                keys.getMessage());
        // A command the scripts run: Redis names neither it nor the line's command.
        allow(URL, "&" + PREFIX + ":*", "+subscribe", "-hsetnx");
        DelayedJobsException command = assertThrows(DelayedJobsException.class,
                () -> scheduler.schedule("chan", "c", "x", Duration.ofMinutes(1)));
        assertTrue(command.getMessage().contains("the readiness check names the commands"), command.getMessage());
        assertTrue(HealthEndpoints.get(HealthEndpoints.READY).body().contains("HSETNX"));
    }

    @Test
    void withoutTheChannelsTheWorkersStillRunAcknowledgeAndReArmTheStoredJobs() {
        scheduler.schedule("chan", "stored-before", "x", Duration.ofSeconds(2));
        scheduler.recurring("chan", "every-second", "* * * * * ?", ZoneOffset.UTC, "tick");
        allow(URL, "+subscribe"); // no channel from now on
        // Acknowledged although its claim's wake-ups may not be published (a plain ack publishes nothing).
        await().atMost(Duration.ofSeconds(15)).until(() -> Handler.ran.containsKey("stored-before")
                && scheduler.find("chan", "stored-before").isEmpty());
        // Re-armed each time without its wake-up: a refused re-arm carried by a claim would stop the shard's claims.
        Instant afterRevoke = Instant.now();
        await().atMost(Duration.ofSeconds(15)).until(() -> Handler.runs.getOrDefault("every-second", List.of()).stream()
                .filter(at -> at.isAfter(afterRevoke)).count() >= 3);
        allow(URL, "&" + PREFIX + ":*", "+subscribe");
        assertTrue(scheduler.cancel("chan", "every-second"));
    }

    @Test
    void withTheWakeSubscriptionRefusedAJobStartsWithinAPollInterval() {
        allow(URL, "&" + PREFIX + ":*"); // publish, but no SUBSCRIBE: the subscription is refused from now on
        // The subscription open now goes on delivering: cut it, so that its next opening is refused.
        RedisTestServer.command(URL, "CLIENT", "KILL", "USER", USER);
        await().atMost(Duration.ofSeconds(10)).until(() -> HealthEndpoints.get(HealthEndpoints.READY).status() == 503);
        Instant due = Instant.now().plusSeconds(1);
        scheduler.schedule("chan", "unwoken", "x", due);
        await().atMost(Duration.ofSeconds(15)).until(() -> Handler.ran.containsKey("unwoken"));
        Duration late = Duration.between(due, Handler.ran.get("unwoken"));
        // Each poll interval (2 s here) rather than each tenth (20 s).
        assertTrue(late.compareTo(Duration.ofSeconds(6)) < 0, "started " + late.toMillis() + " ms late");
    }
}
