package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.HandlerDefinition;
import io.quarkiverse.delayedjobs.runtime.HandlerRegistry;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.annotation.NonBlocking;
import io.vertx.core.Context;

/**
 * A bean that overrides a {@code @Delayed} method of its superclass: the most specific declaration governs, as
 * virtual dispatch runs the override whatever the queue. The override's own {@code @Delayed} (same queue or another)
 * and threading annotations apply; an override without {@code @Delayed} leaves no handler.
 */
public class OverriddenHandlerTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(SameQueueBase.class, SameQueue.class, OtherQueueBase.class,
                    OtherQueue.class, UnannotatedBase.class, Unannotated.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "overridden-handler");

    /** Which body ran for a payload, and whether on the event loop. */
    record Ran(String body, String payload, boolean eventLoop) {
    }

    static final BlockingQueue<Ran> ran = new ArrayBlockingQueue<>(10);

    abstract static class SameQueueBase {
        @Delayed("same")
        void handle(String payload) {
            ran.add(new Ran("SameQueueBase", payload, Context.isOnEventLoopThread()));
        }
    }

    @ApplicationScoped
    static class SameQueue extends SameQueueBase {
        @Delayed("same")
        @NonBlocking
        @Override
        void handle(String payload) {
            ran.add(new Ran("SameQueue", payload, Context.isOnEventLoopThread()));
        }
    }

    abstract static class OtherQueueBase {
        @Delayed("old")
        void handle(String payload) {
        }
    }

    @ApplicationScoped
    static class OtherQueue extends OtherQueueBase {
        @Delayed("new")
        @Override
        void handle(String payload) {
        }
    }

    abstract static class UnannotatedBase {
        @Delayed("gone")
        void handle(String payload) {
        }

        @Delayed("kept")
        void keep() {
        }
    }

    @ApplicationScoped
    static class Unannotated extends UnannotatedBase {
        @Override
        void handle(String payload) {
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    HandlerRegistry registry;

    @Test
    void onlyTheMostSpecificDeclarationIsAHandler() {
        Map<String, String> methodOfQueue = registry.handlers().stream()
                .collect(Collectors.toMap(HandlerDefinition::queue, HandlerDefinition::method));
        assertEquals(Map.of("same", SameQueue.class.getName() + "#handle()",
                "new", OtherQueue.class.getName() + "#handle()",
                "kept", UnannotatedBase.class.getName() + "#keep()"), methodOfQueue);
    }

    @Test
    void theOverrideRunsWithItsOwnThreadingAnnotation() throws InterruptedException {
        scheduler.schedule("same", "s:1", "ada", Duration.ZERO);
        assertEquals(new Ran("SameQueue", "ada", true), ran.poll(20, TimeUnit.SECONDS));
    }
}
