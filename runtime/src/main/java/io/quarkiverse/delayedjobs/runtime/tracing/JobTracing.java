package io.quarkiverse.delayedjobs.runtime.tracing;

import io.quarkiverse.delayedjobs.JobContext;

/**
 * Wraps each run of a handler in a span of its own, when the application traces with OpenTelemetry
 * ({@link OpenTelemetryJobTracing}); {@link #NONE} otherwise. Kept free of OpenTelemetry types, which an application
 * without that extension does not have.
 */
public interface JobTracing {

    JobTracing NONE = (job, method) -> Run.NONE;

    /**
     * Starts the span of a delivery and makes it current on the calling thread, the handler's, just before its handler
     * runs.
     */
    Run begin(JobContext job, String method);

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
