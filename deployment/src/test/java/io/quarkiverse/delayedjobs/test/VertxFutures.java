package io.quarkiverse.delayedjobs.test;

import io.vertx.core.Future;

/** Waits for a Vert.x future of the engine's internals from a test thread. */
final class VertxFutures {

    private VertxFutures() {
    }

    static <T> T get(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get();
    }
}
