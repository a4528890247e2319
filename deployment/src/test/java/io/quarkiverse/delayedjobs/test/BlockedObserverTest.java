package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobSucceeded;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Synchronous observers that block (on an alerting service that hangs, say) hold up the events that follow, never the
 * jobs: they run on threads of their own, {@code delayed-jobs-events}, however many of them block, and blocking
 * handlers keep the worker pool. The pool is made small here only to keep the test small.
 */
public class BlockedObserverTest {

    private static final int JOBS = 20;

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, Observer.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "blocked-observer")
            .overrideConfigKey("quarkus.thread-pool.max-threads", "8");

    static class Handler {
        static final AtomicInteger runs = new AtomicInteger();

        @Delayed("observed")
        void run() {
            runs.incrementAndGet();
        }
    }

    static class Observer {
        static final CountDownLatch release = new CountDownLatch(1);
        static final List<String> notified = new CopyOnWriteArrayList<>();
        static final Set<String> threads = ConcurrentHashMap.newKeySet();

        void succeeded(@Observes JobSucceeded event) throws InterruptedException {
            threads.add(Thread.currentThread().getName());
            release.await(60, TimeUnit.SECONDS);
            notified.add(event.job().id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void jobsRunWhileObserversBlock() {
        try {
            for (int i = 0; i < JOBS; i++) {
                scheduler.schedule("observed", "job:" + i, null, Duration.ZERO);
            }
            await().atMost(Duration.ofSeconds(10)).until(Handler.runs::get, is(JOBS));
            assertTrue(Observer.threads.stream().allMatch(t -> t.startsWith("delayed-jobs-events")),
                    Observer.threads::toString);
        } finally {
            Observer.release.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> Observer.notified.size() == JOBS);
    }
}
