package io.quarkiverse.delayedjobs.runtime.redis;

import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * One connection taken from the Redis client and kept, on which every call of the job protocol is pipelined.
 * Borrowing a pooled connection per call would cap the calls in flight at the pool size and fail the rest once the
 * pool's wait queue is full; Redis runs commands one at a time anyway. A broken connection is replaced on the next
 * call, and so is one on which a call went unanswered for {@code redis-timeout}.
 */
final class SharedConnection {

    private final Redis redis;
    private final Vertx vertx;
    private final long timeoutMs;
    private final AtomicReference<Future<RedisConnection>> current = new AtomicReference<>();

    SharedConnection(Redis redis, Vertx vertx, long timeoutMs) {
        this.redis = redis;
        this.vertx = vertx;
        this.timeoutMs = timeoutMs;
    }

    Future<Response> send(Request request) {
        return connection().compose(conn -> {
            Promise<Response> answer = Promise.promise();
            long timer = vertx.setTimer(timeoutMs, id -> {
                if (answer.tryFail(new TimeoutException("Redis did not answer within " + timeoutMs + " ms"))) {
                    // The answers still due on this connection would no longer match their calls: drop it.
                    drop(conn);
                }
            });
            conn.send(request).onComplete(ar -> {
                vertx.cancelTimer(timer);
                if (ar.succeeded()) {
                    answer.tryComplete(ar.result());
                } else {
                    answer.tryFail(ar.cause());
                }
            });
            return answer.future();
        });
    }

    private void drop(RedisConnection conn) {
        Future<RedisConnection> kept = current.get();
        if (kept != null && kept.succeeded() && kept.result() == conn) {
            current.compareAndSet(kept, null);
        }
        conn.close();
    }

    private Future<RedisConnection> connection() {
        Future<RedisConnection> existing = current.get();
        if (existing != null) {
            return existing;
        }
        Promise<RedisConnection> promise = Promise.promise();
        Future<RedisConnection> created = promise.future();
        if (!current.compareAndSet(null, created)) {
            // Another caller is connecting: read its future once, since a failed connect clears it at any moment.
            Future<RedisConnection> theirs = current.get();
            return theirs != null ? theirs : connection();
        }
        redis.connect().onComplete(ar -> {
            if (ar.succeeded()) {
                RedisConnection conn = ar.result();
                conn.exceptionHandler(e -> current.compareAndSet(created, null));
                conn.endHandler(v -> current.compareAndSet(created, null));
            } else {
                current.compareAndSet(created, null);
            }
            promise.handle(ar);
        });
        return created;
    }
}
