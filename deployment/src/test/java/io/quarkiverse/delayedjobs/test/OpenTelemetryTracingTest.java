package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;

/**
 * With the OpenTelemetry extension, each run of a handler is a consumer span {@code process <queue>} of its own, current
 * while the handler runs (an asynchronous one's until its result completes), that names the job and its attempt and records the
 * handler's failure; the engine's own
 * Redis calls make no spans.
 */
public class OpenTelemetryTracingTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, Exporter.class, RedisTestServer.class))
            .setForcedDependencies(List.of(
                    Dependency.of("io.quarkus", "quarkus-opentelemetry-deployment", Version.getVersion())))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "traced")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"traced\".max-attempts", "1")
            .overrideConfigKey("quarkus.otel.bsp.schedule.delay", "50ms");

    static class Handler {
        /** The trace current in the handler, per job id. */
        static final Map<String, String> traceSeen = new ConcurrentHashMap<>();

        @Delayed("traced")
        void run(String text, JobContext job) {
            traceSeen.put(job.id(), Span.current().getSpanContext().getTraceId());
            if (text.equals("fail")) {
                throw new IllegalStateException("the handler failed on purpose");
            }
        }

        @Inject
        Vertx vertx;

        /** Reads the current trace after a hop: a timer's callback, on the run's Vert.x context. */
        @Delayed("traced-async")
        Uni<Void> runLater(JobContext job) {
            return Uni.createFrom().emitter(done -> vertx.setTimer(20, id -> {
                traceSeen.put(job.id(), Span.current().getSpanContext().getTraceId());
                done.complete(null);
            }));
        }
    }

    @ApplicationScoped
    static class Exporter {
        @Produces
        @Singleton
        InMemorySpanExporter exporter() {
            return InMemorySpanExporter.create();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Inject
    InMemorySpanExporter exporter;

    @Inject
    OpenTelemetry openTelemetry;

    @Test
    void eachRunIsASpanCurrentWhileTheHandlerRuns() {
        // As in a REST endpoint: the schedule call is a child of the caller's span.
        Span request = openTelemetry.getTracer("test").spanBuilder("request").startSpan();
        try (Scope scope = request.makeCurrent()) {
            scheduler.schedule("traced", "job-ok", "fine", Duration.ZERO);
        }
        request.end();
        scheduler.schedule("traced", "job-failing", "fail", Duration.ZERO);

        scheduler.schedule("traced-async", "job-async", null, Duration.ZERO);

        await().atMost(Duration.ofSeconds(10)).until(() -> jobSpans().size() == 2 && asyncSpans().size() == 1);
        SpanData ok = span("job-ok");
        SpanData failing = span("job-failing");

        assertEquals("process traced", ok.getName());
        assertEquals(SpanKind.CONSUMER, ok.getKind());
        assertEquals("traced", ok.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")));
        assertEquals(1L, ok.getAttributes().get(AttributeKey.longKey("delayed_jobs.attempt")));
        assertEquals(Handler.class.getName() + ".run",
                ok.getAttributes().get(AttributeKey.stringKey("code.function.name")));
        assertEquals(StatusCode.UNSET, ok.getStatus().getStatusCode());
        assertEquals(ok.getTraceId(), Handler.traceSeen.get("job-ok"));

        assertEquals(StatusCode.ERROR, failing.getStatus().getStatusCode());
        assertEquals("the handler failed on purpose", failing.getStatus().getDescription());
        assertEquals("exception", failing.getEvents().get(0).getName());
        assertEquals(failing.getTraceId(), Handler.traceSeen.get("job-failing"));
        // Each run starts a trace of its own.
        assertNotEquals(ok.getTraceId(), failing.getTraceId());
        SpanData send = exporter.getFinishedSpanItems().stream().filter(x -> x.getName().equals("send traced")
                && "job-ok".equals(x.getAttributes().get(AttributeKey.stringKey("messaging.message.id"))))
                .findFirst().orElseThrow();
        assertEquals(SpanKind.PRODUCER, send.getKind());
        assertEquals(request.getSpanContext().getSpanId(), send.getParentSpanId());

        // An asynchronous handler's span stays current on its Vert.x context until its Uni completes.
        assertEquals(asyncSpans().get(0).getTraceId(), Handler.traceSeen.get("job-async"));
        // The engine's own Redis calls (claims, renewals, its subscription) are not traced: each would be a trace.
        assertEquals(Set.of("request", "send traced", "send traced-async", "process traced", "process traced-async"),
                exporter.getFinishedSpanItems().stream().map(SpanData::getName).collect(Collectors.toSet()));
    }

    private List<SpanData> jobSpans() {
        return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals("process traced")).toList();
    }

    private List<SpanData> asyncSpans() {
        return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals("process traced-async"))
                .toList();
    }

    private SpanData span(String id) {
        return jobSpans().stream()
                .filter(s -> id.equals(s.getAttributes().get(AttributeKey.stringKey("messaging.message.id"))))
                .findFirst().orElseThrow();
    }
}
