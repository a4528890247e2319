package io.quarkiverse.delayedjobs;

/**
 * What {@code schedule} did with the job it was given.
 */
public enum ScheduleResult {
    /** No job had that id: the job was stored. */
    CREATED,
    /** A job had that id: it now carries the new payload and due time. */
    REPLACED,
    /** A job had that id and was left as it was. */
    KEPT
}
