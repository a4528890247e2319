package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.Vertx;

/**
 * The blocking {@link DelayedScheduler} called on an event loop refuses at once, saying which API to use there, and
 * sends nothing to Redis.
 */
public class BlockingOnEventLoopTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "blocking-on-event-loop");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    Vertx vertx;

    @Test
    void refusesOnAnEventLoopBeforeSendingAnything() throws Exception {
        CompletableFuture<Throwable> refused = new CompletableFuture<>();
        vertx.runOnContext(v -> {
            try {
                scheduler.schedule("blocked", "job", "p", Duration.ofMinutes(1));
                refused.complete(null);
            } catch (RuntimeException e) {
                refused.complete(e);
            }
        });
        Throwable e = refused.get(10, TimeUnit.SECONDS);
        assertTrue(e instanceof IllegalStateException, String.valueOf(e));
        assertTrue(
                e.getMessage()
                        .startsWith("DelayedScheduler waits for Redis and must not be called on vert.x-eventloop-thread-"),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("use ReactiveDelayedScheduler there"), e.getMessage());
        assertEquals(0, scheduler.stats("blocked").pending(), "nothing was stored");
    }
}
