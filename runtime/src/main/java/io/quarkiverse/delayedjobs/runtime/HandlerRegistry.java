package io.quarkiverse.delayedjobs.runtime;

import java.util.List;

/**
 * The {@code @Delayed} handlers of this application, sorted by queue.
 */
public record HandlerRegistry(List<HandlerDefinition> handlers) {
}
