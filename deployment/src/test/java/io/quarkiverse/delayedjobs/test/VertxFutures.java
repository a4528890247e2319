package io.quarkiverse.delayedjobs.test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.vertx.core.Context;
import io.vertx.core.Future;

/** Waits for Vert.x futures and event-loop contexts of the engine's internals from a test thread. */
final class VertxFutures {

    private VertxFutures() {
    }

    static <T> T get(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get();
    }

    /** The name of the thread that runs the tasks of a context: its event loop's. */
    static String threadOf(Context context) throws Exception {
        CompletableFuture<String> thread = new CompletableFuture<>();
        context.runOnContext(v -> thread.complete(Thread.currentThread().getName()));
        return thread.get(10, TimeUnit.SECONDS);
    }

    /** Blocks the event loop of a context until {@code release} (at most a minute); returns once it is blocked. */
    static void block(Context context, CountDownLatch release) throws InterruptedException {
        CountDownLatch blocked = new CountDownLatch(1);
        context.runOnContext(v -> {
            blocked.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        if (!blocked.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the event loop of " + context + " ran no task within 10 s");
        }
    }
}
