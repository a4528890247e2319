package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A wake subscription that goes silent without its connection closing is found out by the heartbeat: within a poll
 * interval and 5 s the listener subscribes again and the workers look at every shard, so a job whose wake-up was lost
 * still runs. The heartbeats lost on the silent subscription say nothing of the new one, which stays.
 */
public class HeartbeatTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Quiet.class, RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "heartbeat")
            // A heartbeat every 1.3 s. The silent subscription is closed 5 s after the first heartbeat it loses and
            // replaced 1 s later; the second lost heartbeat is judged 0.3 s after that, before the new subscription
            // got a heartbeat of its own: it must not close the new one.
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "1300ms");

    static class Quiet {
        static final Set<String> ran = ConcurrentHashMap.newKeySet();

        @Delayed("quiet")
        void run(JobContext context) {
            ran.add(context.id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aSilentSubscriptionIsReplacedOnce() {
        // The application subscribed through the proxy as it started; tests before it may have too (the proxy is the
        // JVM's): only the subscriptions from now on count.
        int before = SilentProxy.subscribers();
        assertTrue(before >= 1, "the application did not subscribe through the proxy");
        SilentProxy.silenceSubscribers();
        // Its wake-up is published on the silent subscription: the worker, idle, does not know of it.
        scheduler.schedule("quiet", "meanwhile", null, Duration.ofMillis(200));

        await().atMost(Duration.ofSeconds(15)).until(() -> SilentProxy.subscribers() == before + 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> Quiet.ran.contains("meanwhile"));
        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(7))
                .until(() -> SilentProxy.subscribers() == before + 1);
    }
}
