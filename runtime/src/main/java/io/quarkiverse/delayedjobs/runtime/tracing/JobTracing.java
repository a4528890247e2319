package io.quarkiverse.delayedjobs.runtime.tracing;

import io.quarkiverse.delayedjobs.JobContext;

/**
 * Wraps each run of a handler, and each {@code schedule} call, in a span of its own, when the application traces with
 * OpenTelemetry
 * ({@link OpenTelemetryJobTracing}); {@link #NONE} otherwise. Kept free of OpenTelemetry types, which an application
 * without that extension does not have.
 */
public interface JobTracing {

    JobTracing NONE = new JobTracing() {
        @Override
        public Run begin(JobContext job, String function) {
            return Run.NONE;
        }

        @Override
        public Run sending(String queue, String id) {
            return Run.NONE;
        }
    };

    /**
     * Starts the span of a delivery and makes it current on the calling thread, the handler's, just before its handler
     * runs; {@code function} names the handler method, as in {@code org.acme.Reminders.send}.
     */
    Run begin(JobContext job, String function);

    /**
     * Starts the span of a {@code schedule} call, a child of the caller's current span, when the call is sent to Redis;
     * it is not made current, and {@link Run#leave()} does nothing.
     */
    Run sending(String queue, String id);

    /** The span of one run of a handler. */
    interface Run {

        Run NONE = new Run() {
            @Override
            public void leave() {
            }

            @Override
            public void end(Throwable failure) {
            }
        };

        /** The handler method returned: its span is no longer current on this thread. */
        void leave();

        /** The handler's result completed, with {@code failure}, or null for success: the span ends. */
        void end(Throwable failure);
    }
}
