package io.quarkiverse.delayedjobs;

/**
 * What a recurring job does with occurrences that passed while no instance could run them (all instances were down,
 * or the queue was backed up past the following occurrence).
 */
public enum MisfirePolicy {
    /** Run once for all the missed occurrences, now, then go on with the next future occurrence. The default. */
    FIRE_ONCE,
    /** Run none of the missed occurrences; go on with the next future occurrence. */
    SKIP,
    /**
     * Run each missed occurrence, oldest first, but at most {@code quarkus.delayed-jobs.catch-up-limit} of them: the
     * most recent ones.
     */
    CATCH_UP
}
