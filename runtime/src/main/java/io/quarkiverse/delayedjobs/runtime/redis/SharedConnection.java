package io.quarkiverse.delayedjobs.runtime.redis;

import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * One connection on which every call of the job protocol is pipelined. Borrowing a pooled connection per call would
 * cap the calls in flight at the pool size and fail the rest once the pool's wait queue is full; Redis runs commands
 * one at a time anyway.
 * <p>
 * Each connection comes from a Redis client of its own, made by {@code clients} with the options of the configured
 * Quarkus client. A broken connection is replaced on the next call, and so is one on which a call went unanswered for
 * {@code redis-timeout}: its client is closed, which closes the socket even when the network dropped it silently. (A
 * pooled connection only goes back to its pool when closed, and the next connect would get the same dead socket.)
 */
final class SharedConnection {

    /** A client and the one connection it opens. */
    private static final class Link {
        final Redis client;
        final Future<RedisConnection> connection;
        /** A call on it went unanswered: the calls still on it fail the same way, not as a closed connection. */
        volatile boolean unanswered;

        Link(Redis client, Future<RedisConnection> connection) {
            this.client = client;
            this.connection = connection;
        }
    }

    private final Supplier<Redis> clients;
    private final Vertx vertx;
    private final long timeoutMs;
    private Link current;
    private boolean closed;

    SharedConnection(Supplier<Redis> clients, Vertx vertx, long timeoutMs) {
        this.clients = clients;
        this.vertx = vertx;
        this.timeoutMs = timeoutMs;
    }

    /** Sends a request; it fails after {@code redis-timeout} without an answer, connecting included. */
    Future<Response> send(Request request) {
        Link link;
        try {
            link = link();
        } catch (RuntimeException e) {
            return Future.failedFuture(e); // no client to make (an inactive Quarkus client)
        }
        if (link == null) {
            return Future.failedFuture("The delayed-jobs connection to Redis is closed");
        }
        Promise<Response> answer = Promise.promise();
        long timer = vertx.setTimer(timeoutMs, id -> {
            if (!answer.future().isComplete()) {
                // The answers still due on this connection would no longer match their calls: it goes, before the
                // caller hears of it and calls again.
                link.unanswered = true;
                drop(link);
                answer.tryFail(unanswered());
            }
        });
        link.connection.compose(conn -> conn.send(request)).onComplete(ar -> {
            vertx.cancelTimer(timer);
            if (ar.succeeded()) {
                answer.tryComplete(ar.result());
            } else {
                answer.tryFail(link.unanswered ? unanswered() : ar.cause());
            }
        });
        return answer.future();
    }

    private TimeoutException unanswered() {
        return new TimeoutException("Redis did not answer within " + timeoutMs + " ms");
    }

    /** The link in use, or a new one connecting; null once closed. */
    private synchronized Link link() {
        if (current == null && !closed) {
            Redis client = clients.get();
            Promise<RedisConnection> connected = Promise.promise();
            Link link = new Link(client, connected.future());
            current = link;
            client.connect().onComplete(ar -> {
                if (ar.succeeded()) {
                    ar.result().exceptionHandler(e -> drop(link));
                    ar.result().endHandler(v -> drop(link));
                } else {
                    drop(link);
                }
                connected.handle(ar);
            });
        }
        return current;
    }

    /** Closes the link's client, and with it its connection, unless another link replaced it already. */
    private void drop(Link link) {
        synchronized (this) {
            if (current != link) {
                return;
            }
            current = null;
        }
        link.client.close();
    }

    /** Closes the connection; calls fail from now on. */
    void close() {
        Link link;
        synchronized (this) {
            closed = true;
            link = current;
        }
        if (link != null) {
            drop(link);
        }
    }
}
