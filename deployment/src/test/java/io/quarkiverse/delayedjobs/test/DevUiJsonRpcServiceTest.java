package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.devui.DelayedJobsJsonRpcService;
import io.quarkiverse.delayedjobs.runtime.devui.DelayedJobsJsonRpcService.JobView;
import io.quarkiverse.delayedjobs.runtime.devui.DelayedJobsJsonRpcService.Overview;
import io.quarkiverse.delayedjobs.runtime.devui.DelayedJobsJsonRpcService.QueueView;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The JSON-RPC methods behind the Dev UI page, against a real Redis. The Dev UI registers the service in dev mode
 * only, and Quarkus has no published harness to call it over its WebSocket in 3.34, so the test registers the bean
 * as the dev-mode build step does and calls its methods as the Dev UI would: on the event loop's terms, by Uni.
 */
public class DevUiJsonRpcServiceTest {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(
                    jar -> jar.addClasses(Mail.class, Failing.class, Digest.class, Ended.class, RedisTestServer.class))
            .addBuildChainCustomizer(chain -> chain.addBuildStep(context -> context
                    .produce(AdditionalBeanBuildItem.unremovableOf(DelayedJobsJsonRpcService.class)))
                    .produces(AdditionalBeanBuildItem.class).build())
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "devui-json-rpc")
            .overrideConfigKey("quarkus.delayed-jobs.queues.dv-failing.max-attempts", "1")
            // A schedule that ended before this deployment: the build cannot check a value from the configuration.
            .overrideConfigKey("dv.ended.cron", "0 0 0 1 1 ? 2020")
            // A queue this application only produces to: known from its settings alone.
            .overrideConfigKey("quarkus.delayed-jobs.queues.dv-audit.shards", "2");

    static class Mail {
        @Delayed("dv-mail")
        void send(String text) {
        }
    }

    static class Failing {
        static final AtomicBoolean healed = new AtomicBoolean();
        static final AtomicInteger succeeded = new AtomicInteger();

        @Delayed("dv-failing")
        void run() {
            if (!healed.get()) {
                throw new IllegalStateException("smtp refused");
            }
            succeeded.incrementAndGet();
        }
    }

    static class Digest {
        @Delayed(value = "dv-digest", cron = "0 3 * * *", timeZone = "Europe/Paris")
        void digest() {
        }
    }

    static class Ended {
        @Delayed(value = "dv-ended", cron = "${dv.ended.cron}")
        void run() {
        }
    }

    @Inject
    DelayedJobsJsonRpcService service;

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Test
    void listsTheQueuesWithAHandlerOrSettingsWithTheirFigures() {
        Instant first = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.MILLIS);
        scheduler.schedule("dv-mail", "mail:3", "c", first.plus(Duration.ofHours(2)));
        scheduler.schedule("dv-mail", "mail:1", "a", first);
        scheduler.schedule("dv-mail", "mail:2", "b", first.plus(Duration.ofHours(1)));
        Instant overdue = Instant.now().minusSeconds(30).truncatedTo(ChronoUnit.MILLIS);
        scheduler.schedule("dv-audit", "audit:1", "x", overdue);

        Overview overview = service.queues().await().atMost(WAIT);
        assertTrue(overview.workers());
        assertEquals("devui-json-rpc", overview.keyPrefix());
        assertEquals(List.of("dv-audit", "dv-digest", "dv-ended", "dv-failing", "dv-mail"),
                overview.queues().stream().map(QueueView::name).toList());
        Map<String, QueueView> queues = overview.queues().stream()
                .collect(Collectors.toMap(QueueView::name, Function.identity()));

        QueueView mail = queues.get("dv-mail");
        assertEquals(Mail.class.getName() + "#send()", mail.handler());
        assertNull(mail.cron());
        assertNull(mail.nextOccurrenceAt());
        assertNull(mail.error());
        assertEquals(3L, mail.pending());
        assertEquals(0L, mail.running());
        assertEquals(0L, mail.dead());
        assertEquals(first.toString(), mail.nextDueAt());
        assertEquals(0L, mail.lagMillis());

        QueueView audit = queues.get("dv-audit");
        assertNull(audit.handler(), "no @Delayed method handles dv-audit here");
        assertEquals(1L, audit.pending());
        assertEquals(overdue.toString(), audit.nextDueAt());
        assertTrue(audit.lagMillis() >= 30_000, "lag " + audit.lagMillis());

        QueueView digest = queues.get("dv-digest");
        assertEquals(Digest.class.getName() + "#digest()", digest.handler());
        assertEquals("0 3 * * *", digest.cron());
        assertEquals("Europe/Paris", digest.timeZone());
        ZonedDateTime paris = ZonedDateTime.now(ZoneId.of("Europe/Paris"));
        ZonedDateTime at3 = paris.truncatedTo(ChronoUnit.DAYS).withHour(3);
        assertEquals((at3.isAfter(paris) ? at3 : at3.plusDays(1)).toInstant().toString(), digest.nextOccurrenceAt(),
                "the occurrence the static schedule's job is armed at");

        QueueView ended = queues.get("dv-ended");
        assertEquals("0 0 0 1 1 ? 2020", ended.cron());
        assertNull(ended.nextOccurrenceAt(), "a schedule that has ended arms nothing");
        await().atMost(WAIT).until(() -> service.queues().await().atMost(WAIT).queues().stream()
                .filter(q -> q.name().equals("dv-digest")).findFirst().orElseThrow().pending() == 1);
    }

    @Test
    void listsTheOtherQueuesFoundInRedisWithTheirFigures() {
        // A queue this application neither handles nor configures: as after a rename, its jobs stay in Redis.
        scheduler.schedule("dv-renamed", "old:1", "a", Duration.ofHours(1));
        scheduler.schedule("dv-renamed", "old:2", "b", Duration.ofHours(2));
        // One of another application, with a shard count of its own, and of another prefix.
        assertEquals("+OK",
                RedisTestServer.command(RedisTestServer.sharedUrl(), "SET", "devui-json-rpc:{dv-other}:shards", "2"));
        assertEquals("+OK", RedisTestServer.command(RedisTestServer.sharedUrl(), "SET", "devui-json-rpc2:{dv-x}:shards", "8"));

        Overview overview = service.queues().await().atMost(WAIT);
        assertNull(overview.otherQueuesError());
        Map<String, QueueView> others = overview.otherQueues().stream()
                .collect(Collectors.toMap(QueueView::name, Function.identity()));
        assertTrue(others.keySet().containsAll(List.of("dv-other", "dv-renamed")), others.keySet()::toString);
        assertFalse(others.containsKey("dv-x"), "a queue of another prefix");
        QueueView renamed = others.get("dv-renamed");
        assertNull(renamed.handler());
        assertNull(renamed.error());
        assertEquals(2L, renamed.pending());
        assertEquals(0L, others.get("dv-other").pending());
        assertNull(others.get("dv-other").error(), "read with the count recorded for it");
        assertFalse(overview.queues().stream().anyMatch(q -> others.containsKey(q.name())));

        // Acting on them by the count recorded for each: another application's count is no disagreement here, and
        // nothing about them is remembered (an agreeing queue's count would be recorded again at each poll interval).
        assertNull(service.find("dv-other", "none").await().atMost(WAIT));
        assertEquals("b", service.find("dv-renamed", "old:2").await().atMost(WAIT).payload().replace("\"", ""));
        assertTrue(service.cancel("dv-renamed", "old:2").await().atMost(WAIT));
        assertEquals(List.of(), service.deadLetters("dv-other", 10).await().atMost(WAIT));
        assertEquals(List.of(), store.shardCountDisagreements(), "another application's count is no disagreement here");
        assertEquals(":1", RedisTestServer.command(RedisTestServer.sharedUrl(), "DEL", "devui-json-rpc:{dv-other}:shards"));
        store.recordShardCountsNow();
        await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> RedisTestServer
                .command(RedisTestServer.sharedUrl(), "EXISTS", "devui-json-rpc:{dv-other}:shards").equals(":0"));
    }

    @Test
    void findsAJobOfAnyQueueAndCancelsIt() {
        Instant due = Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS);
        scheduler.schedule("dv-elsewhere", "parcel:7", Map.of("to", "ada"), due);

        JobView job = service.find("dv-elsewhere", "parcel:7").await().atMost(WAIT);
        assertEquals(new JobView("dv-elsewhere", "parcel:7", "PENDING", due.toString(), 0, null, "{\"to\":\"ada\"}",
                null), job);

        assertTrue(service.cancel("dv-elsewhere", "parcel:7").await().atMost(WAIT));
        assertNull(service.find("dv-elsewhere", "parcel:7").await().atMost(WAIT));
        assertFalse(service.cancel("dv-elsewhere", "parcel:7").await().atMost(WAIT));
    }

    @Test
    void listsADeadLetterAndRequeueRunsItAgain() {
        scheduler.schedule("dv-failing", "fail:1", null, Duration.ZERO);

        List<JobView> dead = await().atMost(WAIT)
                .until(() -> service.deadLetters("dv-failing", 10).await().atMost(WAIT), letters -> !letters.isEmpty());
        assertEquals(1, dead.size());
        JobView letter = dead.get(0);
        assertEquals("fail:1", letter.id());
        assertEquals("DEAD", letter.state());
        assertEquals(1, letter.attempts(), "max-attempts of dv-failing is 1");
        assertEquals("java.lang.IllegalStateException: smtp refused", letter.lastError());
        assertEquals(1L, service.queues().await().atMost(WAIT).queues().stream()
                .filter(q -> q.name().equals("dv-failing")).findFirst().orElseThrow().dead());
        assertEquals("DEAD", service.find("dv-failing", "fail:1").await().atMost(WAIT).state());

        Failing.healed.set(true);
        assertTrue(service.requeue("dv-failing", "fail:1").await().atMost(WAIT));
        await().atMost(WAIT).until(() -> Failing.succeeded.get() == 1);
        await().atMost(WAIT).until(() -> service.find("dv-failing", "fail:1").await().atMost(WAIT) == null);
        assertEquals(List.of(), service.deadLetters("dv-failing", 10).await().atMost(WAIT));
        assertFalse(service.requeue("dv-failing", "fail:1").await().atMost(WAIT), "no dead letter is left");
    }

    @Test
    void aBadArgumentFailsTheCallWithTheRule() {
        String rule = "queue must match [A-Za-z0-9._-]{1,64}, was 'no spaces please'";
        assertEquals(rule, assertThrows(IllegalArgumentException.class,
                () -> service.find("no spaces please", "x").await().atMost(WAIT)).getMessage());
        assertEquals(rule, assertThrows(IllegalArgumentException.class,
                () -> service.cancel("no spaces please", "x").await().atMost(WAIT)).getMessage());
        assertEquals(rule, assertThrows(IllegalArgumentException.class,
                () -> service.deadLetters("no spaces please", 10).await().atMost(WAIT)).getMessage());
        assertEquals(rule, assertThrows(IllegalArgumentException.class,
                () -> service.requeue("no spaces please", "x").await().atMost(WAIT)).getMessage());
        assertEquals("id must not be blank, was ''", assertThrows(IllegalArgumentException.class,
                () -> service.find("dv-mail", "").await().atMost(WAIT)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> service.deadLetters("dv-mail", 0).await().atMost(WAIT)).getMessage().startsWith("limit must"));
    }
}
