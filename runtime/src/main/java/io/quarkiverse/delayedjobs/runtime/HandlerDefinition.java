package io.quarkiverse.delayedjobs.runtime;

import jakarta.enterprise.invoke.Invoker;

import io.quarkiverse.delayedjobs.MisfirePolicy;

/**
 * A {@code @Delayed} method as validated at build time.
 *
 * @param queue the queue it handles
 * @param method {@code Class#method()}, for messages
 * @param invoker calls the method on the bean's contextual instance
 * @param payloadType the canonical generic type of the payload parameter, or null when there is none
 * @param payloadIndex the position of the payload parameter, or -1
 * @param contextIndex the position of the {@code JobContext} parameter, or -1
 * @param parameterCount the number of parameters
 * @param executionModel where it runs
 * @param asynchronous whether it returns a {@code Uni} or {@code CompletionStage} rather than {@code void}
 * @param cron the cron expression of a recurring handler, or null
 * @param timeZone the zone of the cron expression, or null for UTC
 * @param misfire the misfire policy of a recurring handler
 */
public record HandlerDefinition(String queue, String method, Invoker<Object, Object> invoker, String payloadType,
        int payloadIndex, int contextIndex, int parameterCount, ExecutionModel executionModel, boolean asynchronous,
        String cron,
        String timeZone, MisfirePolicy misfire) {
}
