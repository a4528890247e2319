package io.quarkiverse.delayedjobs.benchmark;

import jakarta.enterprise.context.ApplicationScoped;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.JobContext;

/**
 * The only handler of the benchmark application, so that an idle instance has exactly one queue. It does nothing
 * but count, and note how late it started.
 */
@ApplicationScoped
public class BenchHandler {

    /** The queue drained by the drain, lateness and scale workloads. */
    public static final String QUEUE = "bench";

    private final Tally tally;

    public BenchHandler(Tally tally) {
        this.tally = tally;
    }

    @Delayed(QUEUE)
    void run(BenchPayload payload, JobContext context) {
        tally.started(payload, context);
    }
}
