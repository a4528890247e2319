package io.quarkiverse.delayedjobs.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.test.RedisTestServer;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.json.JsonObject;

/**
 * Every handler shape the rules allow builds, starts, receives its payload and context on the thread its execution
 * model promises, and has its job acknowledged.
 */
public class HandlerShapesTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Shapes.class, Greeting.class, Tagged.class, Run.class,
                    RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "handler-shapes");

    public record Greeting(String name) {
    }

    /** A type-use annotation: Jandex keeps it on the parameter's type. */
    @Target(ElementType.TYPE_USE)
    @Retention(RetentionPolicy.RUNTIME)
    public @interface Tagged {
    }

    /** What a handler saw: its arguments and where it ran. */
    record Run(Object payload, JobContext context, boolean eventLoop, boolean virtualThread) {
    }

    static class Shapes {
        static final Map<String, Object> PAYLOADS = new TreeMap<>(Map.ofEntries(
                Map.entry("payload-then-context", new Greeting("a")),
                Map.entry("context-then-payload", new Greeting("b")),
                Map.entry("no-parameters", new Greeting("ignored")),
                Map.entry("uni", new Greeting("c")),
                Map.entry("completion-stage", new Greeting("d")),
                Map.entry("blocking-uni", new Greeting("e")),
                Map.entry("non-blocking", new Greeting("f")),
                Map.entry("virtual-thread", new Greeting("g")),
                Map.entry("string-value", "hello"),
                Map.entry("string-json", new Greeting("h")),
                Map.entry("json-object", new Greeting("i")),
                Map.entry("type-annotated", new Greeting("j")),
                Map.entry("array", new Greeting[] { new Greeting("k"), new Greeting("l") }),
                Map.entry("generic", List.of(new Greeting("m")))));
        static final Map<String, Run> runs = new ConcurrentHashMap<>();
        static final CountDownLatch allRan = new CountDownLatch(PAYLOADS.size());

        static void ran(String queue, Object payload, JobContext context) {
            if (runs.putIfAbsent(queue, new Run(payload, context, Context.isOnEventLoopThread(), isVirtual())) == null) {
                allRan.countDown();
            }
        }

        private static boolean isVirtual() {
            try {
                return (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
            } catch (ReflectiveOperationException e) {
                return false; // before Java 21 there are no virtual threads
            }
        }

        @Delayed("payload-then-context")
        void payloadThenContext(Greeting greeting, JobContext context) {
            ran("payload-then-context", greeting, context);
        }

        @Delayed("context-then-payload")
        void contextThenPayload(JobContext context, Greeting greeting) {
            ran("context-then-payload", greeting, context);
        }

        @Delayed("no-parameters")
        void noParameters() {
            ran("no-parameters", null, null);
        }

        @Delayed("uni")
        Uni<Void> uni(Greeting greeting) {
            ran("uni", greeting, null);
            return Uni.createFrom().voidItem();
        }

        @Delayed("completion-stage")
        CompletionStage<Void> completionStage(Greeting greeting, JobContext context) {
            ran("completion-stage", greeting, context);
            return CompletableFuture.completedFuture(null);
        }

        @Blocking
        @Delayed("blocking-uni")
        Uni<Void> blockingUni(Greeting greeting) {
            ran("blocking-uni", greeting, null);
            return Uni.createFrom().voidItem();
        }

        @NonBlocking
        @Delayed("non-blocking")
        void nonBlocking(Greeting greeting) {
            ran("non-blocking", greeting, null);
        }

        @RunOnVirtualThread
        @Delayed("virtual-thread")
        void virtualThread(Greeting greeting) {
            ran("virtual-thread", greeting, null);
        }

        @Delayed("string-value")
        void stringValue(String text) {
            ran("string-value", text, null);
        }

        @Delayed("string-json")
        void stringJson(String text) {
            ran("string-json", text, null);
        }

        @Delayed("json-object")
        void jsonObject(JsonObject json) {
            ran("json-object", json, null);
        }

        @Delayed("type-annotated")
        void typeAnnotated(@Tagged Greeting greeting) {
            ran("type-annotated", greeting, null);
        }

        @Delayed("array")
        void array(Greeting[] greetings) {
            ran("array", greetings, null);
        }

        @Delayed("generic")
        void generic(List<Greeting> greetings) {
            ran("generic", greetings, null);
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void everyAllowedShapeRunsOnItsThreadWithItsArguments() throws InterruptedException {
        Shapes.PAYLOADS.forEach((queue, payload) -> scheduler.schedule(queue, queue + ":1", payload, Duration.ZERO));

        if (!Shapes.allRan.await(20, TimeUnit.SECONDS)) {
            Map<String, Object> missing = new TreeMap<>();
            for (String queue : Shapes.PAYLOADS.keySet()) {
                if (!Shapes.runs.containsKey(queue)) {
                    missing.put(queue, scheduler.find(queue, queue + ":1").map(Object::toString).orElse("no job"));
                }
            }
            throw new AssertionError("Handlers that did not run: " + missing);
        }
        Map<String, Run> runs = Shapes.runs;

        for (String queue : List.of("payload-then-context", "context-then-payload", "completion-stage")) {
            JobContext context = runs.get(queue).context();
            assertEquals(queue, context.queue());
            assertEquals(queue + ":1", context.id());
            assertEquals(1, context.attempt());
        }
        assertEquals(new Greeting("a"), runs.get("payload-then-context").payload());
        assertEquals(new Greeting("b"), runs.get("context-then-payload").payload());
        assertNull(runs.get("no-parameters").payload());
        assertEquals(new Greeting("c"), runs.get("uni").payload());
        assertEquals(new Greeting("d"), runs.get("completion-stage").payload());
        assertEquals(new Greeting("e"), runs.get("blocking-uni").payload());
        assertEquals(new Greeting("f"), runs.get("non-blocking").payload());
        assertEquals(new Greeting("g"), runs.get("virtual-thread").payload());
        assertEquals("hello", runs.get("string-value").payload());
        assertEquals("{\"name\":\"h\"}", runs.get("string-json").payload());
        assertEquals("i", assertInstanceOf(JsonObject.class, runs.get("json-object").payload()).getString("name"));
        assertEquals(new Greeting("j"), runs.get("type-annotated").payload());
        assertEquals(List.of(new Greeting("k"), new Greeting("l")),
                List.of(assertInstanceOf(Greeting[].class, runs.get("array").payload())));
        assertEquals(List.of(new Greeting("m")), runs.get("generic").payload());

        for (String queue : List.of("uni", "completion-stage", "non-blocking")) {
            assertTrue(runs.get(queue).eventLoop(), queue + " should run on the event loop");
        }
        for (String queue : List.of("payload-then-context", "context-then-payload", "no-parameters", "blocking-uni",
                "virtual-thread", "string-value", "json-object")) {
            assertFalse(runs.get(queue).eventLoop(), queue + " should not run on the event loop");
        }
        if (Runtime.version().feature() >= 21) {
            assertTrue(runs.get("virtual-thread").virtualThread(), "virtual-thread should run on a virtual thread");
        }

        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (String queue : Shapes.PAYLOADS.keySet()) {
                assertEquals("no job", scheduler.find(queue, queue + ":1").map(Object::toString).orElse("no job"),
                        "the job of " + queue + " should be acknowledged");
            }
        });
    }
}
