package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * At startup the workers claim as soon as the wake subscription's SUBSCRIBE is sent, and Redis takes it a round trip
 * later (here 5 s later: the proxy holds it back). A wake-up published in between reaches no one; once Redis confirmed
 * the subscription the workers look at all their shards, so the job it announced runs then. Before, with a poll
 * interval of an hour, it waited for the full look ten hours later.
 */
public class WakeBeforeSubscribedTest {

    private static final long SUBSCRIBE_DELAY_MS = 5000;

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", proxyHoldingSubscribes())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "wake-before-subscribed")
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "1h");

    static class Handler {
        static final CountDownLatch ran = new CountDownLatch(1);

        @Delayed("early-news")
        void run() {
            ran.countDown();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    /** The proxy's URL, with SUBSCRIBE held back from now on: the application's subscription is the next one. */
    private static String proxyHoldingSubscribes() {
        String url = SilentProxy.url(RedisTestServer.sharedUrl());
        SilentProxy.delaySubscribes(SUBSCRIBE_DELAY_MS);
        return url;
    }

    @AfterAll
    static void endDelay() {
        SilentProxy.delaySubscribes(0);
    }

    @Test
    void aWakeUpPublishedBeforeRedisTookTheSubscriptionIsNotLost() throws InterruptedException {
        // Pub/sub clients of the shared server are this application's: the tests run one at a time.
        assertEquals(0, subscribers(), "Redis took the subscription before the job was scheduled: nothing is tested");
        scheduler.schedule("early-news", "news", null, Duration.ZERO);
        assertEquals(0, subscribers(), "Redis took the subscription before the job's wake-up: nothing is tested");
        SilentProxy.delaySubscribes(0);
        assertTrue(Handler.ran.await(SUBSCRIBE_DELAY_MS + 10_000, TimeUnit.MILLISECONDS),
                "the job announced before Redis took the subscription did not run");
    }

    private static long subscribers() {
        return RedisTestServer.subscribers(RedisTestServer.sharedUrl());
    }
}
