package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The failure of a delivery that Redis refused to record is written again, as a refused ack is: dropped, the job
 * would wait for the lease of its claim, which the claim's other jobs renew as long as their handlers run (for ever,
 * for a handler that never ends). Redis refuses the scripts while the ACL denies them to the client's user.
 */
public class RefusedRetryTest {

    static final String URL = RedisTestServer.sharedUrl("refused-retry");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Pair.class, RedisTestServer.class, LoggedMessages.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "refused-retry")
            .overrideConfigKey("quarkus.delayed-jobs.queues.pair.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.pair.lease", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.pair.claim-ahead", "0s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.pair.backoff.initial", "0s")
            // A refused call is a WARN only when it is the first of the outage: a renewal may be refused before it.
            .overrideConfigKey("quarkus.log.category.\"io.quarkiverse.delayedjobs\".level", "DEBUG");

    static class Pair {
        static final List<String> deliveries = new CopyOnWriteArrayList<>();
        /** Per job, the claim of its first delivery: the part of the delivery id before the dot of the token. */
        static final Map<String, String> claims = new ConcurrentHashMap<>();
        static final CountDownLatch bothStarted = new CountDownLatch(2);
        static final CountDownLatch failNow = new CountDownLatch(1);
        static final CountDownLatch releaseLong = new CountDownLatch(1);

        @Delayed("pair")
        void run(JobContext context) throws InterruptedException {
            deliveries.add(context.id() + "#" + context.attempt());
            claims.putIfAbsent(context.id(), context.deliveryId().substring(0, context.deliveryId().lastIndexOf('.')));
            if (context.id().equals("long")) {
                bothStarted.countDown();
                assertTrue(releaseLong.await(30, TimeUnit.SECONDS));
            } else if (context.attempt() == 1) {
                bothStarted.countDown();
                assertTrue(failNow.await(30, TimeUnit.SECONDS));
                throw new IllegalStateException("downstream unavailable");
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aRefusedRetryIsWrittenAgainWhileAnotherJobOfItsClaimRuns() throws Exception {
        // Due together: one claim takes both.
        Instant due = Instant.now().plusMillis(500);
        scheduler.schedule("pair", "long", null, due);
        scheduler.schedule("pair", "failing", null, due);
        try {
            assertTrue(Pair.bothStarted.await(10, TimeUnit.SECONDS));
            assertEquals(Pair.claims.get("long"), Pair.claims.get("failing"), "precondition: one claim took both");
            try (LoggedMessages logged = LoggedMessages.of("io.quarkiverse.delayedjobs", Level.FINE)) {
                assertEquals("+OK", RedisTestServer.command(URL, "ACL", "SETUSER", "default", "-eval", "-evalsha"));
                Pair.failNow.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> logged.messages().stream()
                        .anyMatch(m -> m.startsWith("Could not record the failure of job failing")));
            } finally {
                assertEquals("+OK", RedisTestServer.command(URL, "ACL", "SETUSER", "default", "+eval", "+evalsha"));
            }
            // The lease is 1 s, yet the handler of "long" renews the claim of both jobs while it runs.
            await().atMost(Duration.ofSeconds(8)).until(() -> Pair.deliveries.contains("failing#2"));
        } finally {
            Pair.releaseLong.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("pair", "long").isEmpty()
                && scheduler.find("pair", "failing").isEmpty());
        assertEquals(List.of("failing#2"), Pair.deliveries.stream().filter(d -> d.startsWith("failing#2")).toList());
    }
}
