package io.quarkiverse.delayedjobs.runtime.tracing;

import jakarta.inject.Singleton;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.quarkiverse.delayedjobs.JobContext;
import io.vertx.core.Vertx;

/**
 * A consumer span per run of a handler, named {@code process <queue>} after the messaging conventions, current while
 * the handler runs: what the handler calls (a REST client, a database) becomes its children. Each run starts a
 * trace of its own, as a {@code @Scheduled} method's does: jobs do not carry their producer's trace. A {@code schedule}
 * call is a producer span {@code send <queue>} in the caller's trace, with the same job id.
 */
@Singleton
public class OpenTelemetryJobTracing implements JobTracing {

    static final String SYSTEM = "quarkus-delayed-jobs";
    static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("delayed_jobs.attempt");
    static final AttributeKey<String> DUE_AT = AttributeKey.stringKey("delayed_jobs.due_at");
    static final AttributeKey<String> FUNCTION = AttributeKey.stringKey("code.function.name");

    private final Tracer tracer;

    public OpenTelemetryJobTracing(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer("io.quarkiverse.delayed-jobs");
    }

    @Override
    public Run sending(String queue, String id) {
        Span span = tracer.spanBuilder("send " + queue)
                .setSpanKind(SpanKind.PRODUCER)
                .setAttribute(MESSAGING_SYSTEM, SYSTEM)
                .setAttribute(OPERATION_NAME, "send")
                .setAttribute(OPERATION_TYPE, "send")
                .setAttribute(DESTINATION, queue)
                .setAttribute(MESSAGE_ID, id)
                .startSpan();
        return new Run() {
            @Override
            public void leave() {
            }

            @Override
            public void end(Throwable failure) {
                ended(span, failure);
            }
        };
    }

    @Override
    public Run begin(JobContext job, String function) {
        Span span = tracer.spanBuilder("process " + job.queue())
                .setParent(Context.root())
                .setSpanKind(SpanKind.CONSUMER)
                .setAttribute(MESSAGING_SYSTEM, SYSTEM)
                .setAttribute(OPERATION_NAME, "process")
                .setAttribute(OPERATION_TYPE, "process")
                .setAttribute(DESTINATION, job.queue())
                .setAttribute(MESSAGE_ID, job.id())
                .setAttribute(ATTEMPT, (long) job.attempt())
                .setAttribute(DUE_AT, job.dueAt().toString())
                .setAttribute(FUNCTION, function)
                .startSpan();
        // On a Vert.x context (the run's own duplicated one), Quarkus keeps the current span in that context rather
        // than in the thread: it stays current there until the run ends, through the hops of an asynchronous handler.
        // Elsewhere it is the thread's, which the handler leaves when its method returns.
        boolean onVertxContext = Vertx.currentContext() != null;
        Scope scope = span.makeCurrent();
        return new Run() {
            @Override
            public void leave() {
                if (!onVertxContext) {
                    scope.close();
                }
            }

            @Override
            public void end(Throwable failure) {
                if (onVertxContext) {
                    scope.close();
                }
                ended(span, failure);
            }
        };
    }

    private static void ended(Span span, Throwable failure) {
        if (failure != null) {
            span.recordException(failure);
            span.setStatus(StatusCode.ERROR, failure.getMessage() == null ? "" : failure.getMessage());
        }
        span.end();
    }
}
