package io.quarkiverse.delayedjobs;

/**
 * What {@code schedule} does when a pending, running or dead job with the same id already exists in the queue. The due
 * time of a running or dead job is the one it was scheduled for.
 */
public enum OnConflict {
    /** Leave the existing job as it is (first writer wins). The default. */
    KEEP,
    /** Store the new payload and due time; a running delivery of the old job can no longer ack or retry it. */
    REPLACE,
    /** Keep whichever due time is earlier; the payload follows the kept due time. */
    KEEP_EARLIER,
    /** Keep whichever due time is later; the payload follows the kept due time. */
    KEEP_LATER
}
