package io.quarkiverse.delayedjobs.runtime.worker;

import java.util.Map;

import org.jboss.logging.Logger;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Listens on the wake channels of the handled queues, where the scripts publish {@code shard:dueMs} when a shard gets
 * an earlier head. After a lost connection it reconnects and makes every worker look at all its shards, since news may
 * have been missed meanwhile.
 */
final class WakeListener {

    private static final Logger LOG = Logger.getLogger(WakeListener.class);
    private static final long RECONNECT_DELAY_MS = 1000;

    private final Redis redis;
    private final Vertx vertx;
    private final Map<String, QueueWorker> workers;
    private volatile RedisConnection connection;
    private volatile boolean stopped;

    WakeListener(Redis redis, Vertx vertx, Map<String, QueueWorker> workers) {
        this.redis = redis;
        this.vertx = vertx;
        this.workers = workers;
    }

    Future<Void> start() {
        return redis.connect().compose(conn -> {
            connection = conn;
            conn.handler(this::onMessage);
            conn.exceptionHandler(e -> LOG.debugf(e, "Wake channel connection failed"));
            conn.endHandler(v -> reconnectLater());
            Request subscribe = Request.cmd(Command.SUBSCRIBE);
            workers.keySet().stream().sorted().forEach(subscribe::arg);
            return conn.send(subscribe).<Void> mapEmpty();
        });
    }

    private void onMessage(Response message) {
        if (message.size() != 3 || !"message".equals(message.get(0).toString())) {
            return;
        }
        QueueWorker worker = workers.get(message.get(1).toString());
        String data = message.get(2).toString();
        int colon = data.indexOf(':');
        if (worker == null || colon < 0) {
            return;
        }
        try {
            worker.wake(Integer.parseInt(data, 0, colon, 10), Long.parseLong(data, colon + 1, data.length(), 10));
        } catch (NumberFormatException e) {
            LOG.debugf("Ignored malformed wake message %s", data);
        }
    }

    private void reconnectLater() {
        if (stopped) {
            return;
        }
        vertx.setTimer(RECONNECT_DELAY_MS, id -> start().onSuccess(v -> workers.values().forEach(QueueWorker::wakeAll))
                .onFailure(e -> {
                    LOG.warnf("Could not listen on the delayed-jobs wake channels (%s); retrying", e.getMessage());
                    reconnectLater();
                }));
    }

    void stop() {
        stopped = true;
        RedisConnection conn = connection;
        if (conn != null) {
            conn.close();
        }
    }
}
