package io.quarkiverse.delayedjobs.benchmark;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.quarkiverse.delayedjobs.benchmark.measure.Counters;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * A connection of the benchmark's own, apart from the extension's client: it reads the server's counters, removes a
 * workload's keys and bulk-loads pending jobs. Its own commands are few and happen outside the measured phases,
 * except the {@code INFO} that closes a phase.
 */
public final class RedisMeter implements AutoCloseable {

    private static final long TIMEOUT_SECONDS = 120;
    private static final int PIPELINE_DEPTH = 8;

    private final Redis client;
    private final RedisConnection connection;

    public RedisMeter(Vertx vertx, String url) {
        this.client = Redis.createClient(vertx, new RedisOptions().setConnectionString(url).setMaxWaitingHandlers(4096));
        this.connection = await(client.connect());
    }

    public Response send(Request request) {
        return await(connection.send(request));
    }

    /** The server's counters and this process's CPU time, now. */
    public Counters counters() {
        Request info = Request.cmd(Command.INFO);
        for (String section : Counters.INFO_SECTIONS) {
            info.arg(section);
        }
        return Counters.parse(send(info).toString());
    }

    /** Deletes every key matching the pattern, in bounded SCAN rounds. */
    public long deleteKeys(String pattern) {
        long deleted = 0;
        String cursor = "0";
        for (int round = 0; round < 1_000_000; round++) {
            Response page = send(Request.cmd(Command.SCAN).arg(cursor).arg("MATCH").arg(pattern).arg("COUNT").arg(1000));
            cursor = page.get(0).toString();
            Response keys = page.get(1);
            if (keys.size() > 0) {
                Request unlink = Request.cmd(Command.UNLINK);
                keys.forEach(k -> unlink.arg(k.toString()));
                deleted += send(unlink).toLong();
            }
            if ("0".equals(cursor)) {
                return deleted;
            }
        }
        throw new IllegalStateException("SCAN did not finish over " + pattern);
    }

    /** Sends requests pipelined on this connection, at most a few in flight, and waits for all of them. */
    public void pipeline(Iterable<Request> requests) {
        Semaphore inFlight = new Semaphore(PIPELINE_DEPTH);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try {
            for (Request request : requests) {
                if (!inFlight.tryAcquire(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("Redis did not answer within " + TIMEOUT_SECONDS + " s");
                }
                if (failure.get() != null) {
                    inFlight.release();
                    break;
                }
                connection.send(request).onComplete(ar -> {
                    if (ar.failed()) {
                        failure.compareAndSet(null, ar.cause());
                    }
                    inFlight.release();
                });
            }
            if (!inFlight.tryAcquire(PIPELINE_DEPTH, TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Redis did not answer within " + TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("A pipelined command failed: " + failure.get().getMessage(), failure.get());
        }
    }

    static <T> T await(Future<T> future) {
        try {
            return future.toCompletionStage().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (Exception e) {
            throw new IllegalStateException("Redis command failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        connection.close();
        client.close();
    }
}
