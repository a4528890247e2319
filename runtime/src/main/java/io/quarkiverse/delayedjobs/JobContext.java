package io.quarkiverse.delayedjobs;

import java.time.Instant;

/**
 * What a handler knows about the delivery it is running. Declare it as a parameter of a {@link Delayed} method.
 */
public interface JobContext {

    /** The queue of the job. */
    String queue();

    /** The id the producer gave the job. */
    String id();

    /** Which delivery this is, starting at 1. */
    int attempt();

    /** When the job was due. */
    Instant dueAt();

    /** Unique per delivery: usable as an idempotency key for side effects of this run. */
    String deliveryId();

    /**
     * Whether this delivery has lost its claim: the job was cancelled or replaced, or the lease could not be renewed.
     * A long handler may check it and stop early, since its result will not be recorded.
     */
    boolean leaseLost();
}
