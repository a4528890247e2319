package io.quarkiverse.delayedjobs.runtime;

/**
 * Where a handler runs, decided at build time from its return type and annotations.
 */
public enum ExecutionModel {
    /** On a worker thread: {@code void} handlers, and asynchronous ones annotated {@code @Blocking}. */
    BLOCKING,
    /** On the event loop: {@code Uni} and {@code CompletionStage} handlers, and {@code @NonBlocking} ones. */
    EVENT_LOOP,
    /** On a virtual thread: handlers annotated {@code @RunOnVirtualThread}. */
    VIRTUAL_THREAD
}
