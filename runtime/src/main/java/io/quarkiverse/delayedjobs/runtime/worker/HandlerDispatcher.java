package io.quarkiverse.delayedjobs.runtime.worker;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.quarkiverse.delayedjobs.runtime.HandlerDefinition;
import io.quarkiverse.delayedjobs.runtime.JobListener;
import io.quarkiverse.delayedjobs.runtime.PayloadCodec;
import io.quarkiverse.delayedjobs.runtime.tracing.JobTracing;
import io.quarkus.arc.Arc;
import io.quarkus.arc.InjectableContext.ContextState;
import io.quarkus.arc.ManagedContext;
import io.quarkus.vertx.core.runtime.context.VertxContextSafetyToggle;
import io.quarkus.virtual.threads.VirtualThreadsRecorder;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.impl.ContextInternal;

/**
 * Runs a handler for a delivery on the thread its execution model asks for, on a fresh duplicated Vert.x context,
 * with the request context active until the handler's result completes.
 */
final class HandlerDispatcher {

    /** Thrown when the payload cannot be read as the handler's parameter type: retrying will not help. */
    static final class UnreadablePayloadException extends Exception {
        private static final long serialVersionUID = 1L;

        UnreadablePayloadException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The delivery's lease ended before its handler could start: the caller hands the job back. */
    static final class LapsedException extends Exception {
        private static final long serialVersionUID = 1L;

        LapsedException() {
            super("its lease ended before its handler started", null, false, false);
        }
    }

    private final HandlerDefinition handler;
    private final PayloadCodec.Reader payloadReader;
    private final JobListener listener;
    private final JobTracing tracing;
    /** The method as OpenTelemetry's {@code code.function.name} gives it: {@code org.acme.Reminders.send}. */
    private final String functionName;

    HandlerDispatcher(HandlerDefinition handler, PayloadCodec codec, JobListener listener, JobTracing tracing) {
        this.handler = handler;
        this.payloadReader = handler.payloadType() == null ? null : codec.reader(handler.payloadType());
        this.listener = listener;
        this.tracing = tracing;
        String method = handler.method();
        int parameters = method.indexOf('(');
        this.functionName = (parameters < 0 ? method : method.substring(0, parameters)).replace('#', '.');
    }

    JobListener listener() {
        return listener;
    }

    private Object[] arguments(Delivery delivery) throws UnreadablePayloadException {
        Object[] args = new Object[handler.parameterCount()];
        if (handler.contextIndex() >= 0) {
            args[handler.contextIndex()] = delivery;
        }
        if (payloadReader != null) {
            try {
                args[handler.payloadIndex()] = payloadReader.read(delivery.job().payload());
            } catch (Exception e) {
                throw new UnreadablePayloadException("payload cannot be read as " + handler.payloadType()
                        + " by " + handler.method() + ": " + e.getMessage(), e);
            }
        }
        return args;
    }

    /**
     * Reads the payload and runs the handler, both on the handler's thread; the future completes when the handler
     * returned or its asynchronous result completed, fails with {@link UnreadablePayloadException} when the payload
     * cannot be read, and with {@link LapsedException} when the delivery's lease ended before the handler's thread
     * took it up. It never completes for a delivery handed back before it started. A blocking handler
     * runs on one of the {@code runners}, started when fewer than {@code wantedRunners} run. Its lateness is measured
     * by the Redis clock, which due times follow: this JVM's clock plus {@code clockOffsetMs}.
     */
    Future<Void> dispatch(Delivery delivery, Context base, BlockingRunners runners, int wantedRunners,
            long clockOffsetMs) {
        Context context = VertxContext.createNewDuplicatedContext(base);
        VertxContextSafetyToggle.setContextSafe(context, true);
        Promise<Void> done = Promise.promise();
        switch (handler.executionModel()) {
            case BLOCKING -> runners.submit(
                    () -> ((ContextInternal) context).dispatch(() -> invoke(delivery, done, clockOffsetMs)),
                    wantedRunners);
            case EVENT_LOOP -> context.runOnContext(v -> invoke(delivery, done, clockOffsetMs));
            case VIRTUAL_THREAD -> context.runOnContext(
                    v -> VirtualThreadsRecorder.getCurrent().execute(() -> invoke(delivery, done, clockOffsetMs)));
        }
        return done.future();
    }

    private void invoke(Delivery delivery, Promise<Void> done, long clockOffsetMs) {
        if (!delivery.start()) {
            if (delivery.lapsed()) {
                done.fail(new LapsedException());
            }
            return;
        }
        try {
            listener.started(delivery, System.currentTimeMillis() + clockOffsetMs - delivery.job().dueMs());
            if (tracing == JobTracing.NONE) {
                run(delivery, done);
            } else {
                traced(delivery, done);
            }
        } catch (Throwable e) {
            // Thrown before the handler's own try (by the request context, or an Error the payload reader let through):
            // the delivery fails as if its handler threw, rather than staying running for ever with nothing to end it.
            done.tryFail(e);
        }
    }

    /**
     * Whether the invoker failed on a null {@code Uni} or {@code CompletionStage} from the handler: it chains the
     * result's completion (to end the bean instance then), so the NPE is thrown by ArC's own code, after the handler
     * method returned. One thrown by the handler, by an interceptor around it or by what they call keeps its message.
     */
    private boolean returnedNull(Throwable e) {
        if (!handler.asynchronous() || !(e instanceof NullPointerException)) {
            return false;
        }
        StackTraceElement[] frames = e.getStackTrace();
        if (frames.length == 0 || !frames[0].getClassName().startsWith("io.quarkus.arc.")) {
            return false;
        }
        int hash = handler.method().indexOf('#');
        String declaringClass = handler.method().substring(0, hash);
        String methodName = handler.method().substring(hash + 1, handler.method().length() - "()".length());
        for (StackTraceElement frame : frames) {
            if (frame.getClassName().equals(declaringClass) && frame.getMethodName().equals(methodName)) {
                return false; // thrown while the handler ran, by ArC code it called
            }
        }
        return true;
    }

    /** Runs the handler in its span: current while the handler method runs, ended when its result completed. */
    private void traced(Delivery delivery, Promise<Void> done) {
        JobTracing.Run span = tracing.begin(delivery, functionName);
        done.future().onComplete(ar -> span.end(ar.cause()));
        try {
            run(delivery, done);
        } finally {
            span.leave();
        }
    }

    private void run(Delivery delivery, Promise<Void> done) {
        Object[] args;
        try {
            args = arguments(delivery);
        } catch (UnreadablePayloadException e) {
            done.fail(e);
            return;
        }
        ManagedContext requestContext = Arc.container().requestContext();
        requestContext.activate();
        Object result;
        try {
            result = handler.invoker().invoke(null, args);
        } catch (Throwable e) {
            requestContext.terminate();
            done.fail(returnedNull(e) ? new IllegalStateException(handler.method()
                    + " returned null instead of a Uni or CompletionStage that completes when the job is done", e) : e);
            return;
        }
        if (result instanceof Uni<?> uni) {
            ContextState state = requestContext.getState();
            uni.subscribe().with(ok -> {
                requestContext.destroy(state);
                done.complete();
            }, failure -> {
                requestContext.destroy(state);
                done.fail(failure);
            });
        } else if (result instanceof CompletionStage<?> stage) {
            ContextState state = requestContext.getState();
            stage.whenComplete((ok, failure) -> {
                requestContext.destroy(state);
                if (failure == null) {
                    done.complete();
                } else {
                    // A stage derived from a failed one reports a CompletionException around the handler's error.
                    done.fail(failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause()
                            : failure);
                }
            });
        } else {
            requestContext.terminate();
            done.complete();
        }
    }
}
