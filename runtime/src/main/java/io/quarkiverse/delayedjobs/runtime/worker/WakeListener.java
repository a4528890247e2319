package io.quarkiverse.delayedjobs.runtime.worker;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.runtime.redis.ClusterConnections;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;

/**
 * Listens on the wake channels of the handled queues, where the scripts publish {@code shard:dueMs} when a shard gets
 * an earlier head, and {@code shard:-token} when a job claimed ahead of its due time ended before it. Once Redis
 * confirmed a subscription, the first or one opened again after a lost connection, it makes every worker look at all
 * its shards, since news may have been published before Redis took it; after a reconnect it also tells the engine
 * (Redis may have restarted without its data).
 * A heartbeat every poll interval proves that the subscription still delivers, so that idle workers need not look at
 * their shards to be sure they missed nothing.
 */
final class WakeListener {

    private static final Logger LOG = Logger.getLogger(WakeListener.class);
    private static final long RECONNECT_DELAY_MS = 1000;

    private static final long HEARTBEAT_TIMEOUT_MS = 5000;

    private final JobStore store;
    private final Vertx vertx;
    private final Map<String, QueueWorker> workers;
    /** Told once a subscription opened again after a lost connection is confirmed. */
    private final Runnable resubscribed;
    private final FailedCalls failedSubscriptions = new FailedCalls(LOG, "the wake subscription");
    /**
     * The next confirmed subscription makes the workers look at all their shards: the first one (they claimed as soon
     * as its SUBSCRIBE was sent), and each after a reconnect.
     */
    private volatile boolean lookAgain = true;
    /** Set by the first reconnect: from then on a confirmed subscription also tells {@link #resubscribed}. */
    private volatile boolean reconnected;
    /** A channel of this instance's own, to prove that the subscription still delivers. */
    private final String heartbeatChannel;
    private volatile RedisConnection connection;
    /** The client of each connection open or opening: a connection goes with its own client. */
    private final Map<RedisConnection, JobStore.OwnClient> clients = new ConcurrentHashMap<>();
    /** The connection whose SUBSCRIBE Redis confirmed last (the client completes the call once it is written). */
    private volatile RedisConnection subscribed;
    private volatile boolean stopped;
    /** Sent by the periodic check, and when the store's connection was lost: on different threads. */
    private final AtomicLong heartbeatsSent = new AtomicLong();
    private volatile long heartbeatReceived;
    /** When {@link #checkHeartbeatAfterLoss()} last sent one (long enough ago at first). */
    private final AtomicLong lastLossCheck = new AtomicLong(
            System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(HEARTBEAT_TIMEOUT_MS));

    WakeListener(JobStore store, Vertx vertx, Map<String, QueueWorker> workers, Runnable resubscribed) {
        this.store = store;
        this.vertx = vertx;
        this.workers = workers;
        this.resubscribed = resubscribed;
        this.heartbeatChannel = store.config().keyPrefix() + ":heartbeat:" + UUID.randomUUID();
    }

    Future<Void> start() {
        return open().compose(conn -> {
            connection = conn;
            // Stopped while connecting (a reconnect under way): stop() may have closed the connection before this one.
            // Set first, then read: stop() sets 'stopped', then reads 'connection', so one of the two closes it.
            if (stopped) {
                close(conn);
                return Future.failedFuture("stopped");
            }
            conn.handler(message -> onMessage(conn, message));
            conn.exceptionHandler(e -> LOG.debugf(e, "Wake channel connection failed"));
            conn.endHandler(v -> replace(conn));
            Request subscribe = Request.cmd(Command.SUBSCRIBE).arg(heartbeatChannel);
            workers.keySet().stream().sorted().forEach(subscribe::arg);
            return conn.send(subscribe).<Void> mapEmpty().onFailure(e -> {
                // The caller tries again: this connection, and its client, go (its end, if it ended, replaces nothing).
                synchronized (this) {
                    if (connection == conn) {
                        connection = null;
                    }
                }
                close(conn);
            });
        });
    }

    /**
     * A new connection, on a client of its own (the store's: closing a pooled connection of the Quarkus client would
     * not close it; on a cluster, a client of one master, the next in turn), or a failure once it has not opened within
     * the store's connect timeout: a node that accepts connections and answers nothing (a frozen process) would
     * otherwise hold the subscription's return until it answers again. One that opens after that is closed.
     */
    private Future<RedisConnection> open() {
        Promise<RedisConnection> opened = Promise.promise();
        // Closed once, by whichever comes last of its making and the deadline, or by a connect that failed.
        AtomicReference<JobStore.OwnClient> toClose = new AtomicReference<>();
        long timeoutMs = store.connectTimeoutMs();
        long deadline = vertx.setTimer(timeoutMs, id -> {
            if (opened.tryFail(new TimeoutException("Redis did not open a connection within " + timeoutMs + " ms"))) {
                closeClient(toClose);
            }
        });
        store.newClient().onComplete(made -> {
            if (made.failed()) {
                vertx.cancelTimer(deadline);
                opened.tryFail(made.cause());
                return;
            }
            JobStore.OwnClient client = made.result();
            toClose.set(client);
            if (opened.future().isComplete()) {
                closeClient(toClose); // past the deadline
                return;
            }
            client.client().connect().onComplete(ar -> {
                vertx.cancelTimer(deadline);
                if (ar.succeeded()) {
                    clients.put(ar.result(), client);
                    if (!opened.tryComplete(ar.result())) {
                        close(ar.result());
                    }
                } else if (opened.tryFail(ar.cause())) {
                    closeClient(toClose);
                }
            });
        });
        return opened.future();
    }

    private static void closeClient(AtomicReference<JobStore.OwnClient> client) {
        JobStore.OwnClient made = client.getAndSet(null);
        if (made != null) {
            made.client().close();
        }
    }

    /** Closes a connection and its client. */
    private void close(RedisConnection conn) {
        JobStore.OwnClient client = clients.remove(conn);
        try {
            conn.close();
        } catch (RuntimeException e) {
            // A cluster connection closed already may throw: its client is closed all the same, and the caller goes on
            // (replace() must still reconnect).
            LOG.debugf(e, "Closing a wake channel connection failed");
        } finally {
            if (client != null) {
                client.client().close();
            }
        }
    }

    private void onMessage(RedisConnection conn, Response message) {
        if (message.type() == ResponseType.ERROR) {
            // The client completes a SUBSCRIBE once it is written, and hands Redis's refusal (NOPERM, say) here: the
            // connection listens to nothing. Closed, it is replaced a second later, as a lost one.
            failedSubscriptions.failed(0, null, "Redis refused the delayed-jobs wake subscription (" + message
                    + "); retrying in " + RECONNECT_DELAY_MS + " ms");
            replace(conn);
            return;
        }
        if (message.type() != ResponseType.MULTI && message.type() != ResponseType.PUSH || message.size() != 3) {
            return;
        }
        String kind = message.get(0).toString();
        String channel = message.get(1).toString();
        if ("subscribe".equals(kind) && channel.equals(heartbeatChannel)) {
            subscribed = conn; // Redis took the whole SUBSCRIBE: a heartbeat published from now on comes back
            failedSubscriptions.succeeded(0);
            if (lookAgain) {
                // Only now: a claim that Redis ran before the subscription could have missed a wake-up in between.
                lookAgain = false;
                workers.values().forEach(QueueWorker::wakeAll);
                if (reconnected) {
                    resubscribed.run();
                }
            }
            return;
        }
        if (!"message".equals(kind)) {
            return;
        }
        String data = message.get(2).toString();
        if (channel.equals(heartbeatChannel)) {
            // The highest: heartbeats sent at once from two threads may come back in either order.
            heartbeatReceived = Math.max(heartbeatReceived, Long.parseLong(data));
            return;
        }
        QueueWorker worker = workers.get(channel);
        int colon = data.indexOf(':');
        if (worker == null || colon < 0) {
            return;
        }
        try {
            int shard = Integer.parseInt(data, 0, colon, 10);
            if (data.startsWith("-", colon + 1)) {
                worker.revoke(shard, data.substring(colon + 2));
            } else {
                worker.wake(shard, Long.parseLong(data, colon + 1, data.length(), 10));
            }
        } catch (NumberFormatException e) {
            LOG.debugf("Ignored malformed wake message %s", data);
        }
    }

    /**
     * Closes a connection that ended, was refused its subscription or went silent, and opens another a second later:
     * once, whichever comes first. (A closed connection may not say it ended: a cluster connection whose node is
     * frozen did not, and closing it again threw.)
     */
    private void replace(RedisConnection conn) {
        synchronized (this) {
            if (connection != conn) {
                return; // replaced already, or stopped
            }
            connection = null;
        }
        close(conn);
        reconnectLater();
    }

    private void reconnectLater() {
        if (stopped) {
            return;
        }
        vertx.setTimer(RECONNECT_DELAY_MS, id -> {
            if (stopped) {
                return;
            }
            reconnected = true;
            lookAgain = true;
            start().onFailure(e -> {
                if (!stopped) {
                    failedSubscriptions.failed(0, e, "Could not listen on the delayed-jobs wake channels; retrying in "
                            + RECONNECT_DELAY_MS + " ms");
                    reconnectLater();
                }
            });
        });
    }

    /**
     * The store lost its connection to {@code node} (null when not on a cluster). The subscription on that same cluster
     * master is replaced at once: a node the store cannot reach has most likely silenced it too. Otherwise the
     * heartbeat tells.
     */
    void storeConnectionLost(String node) {
        RedisConnection conn = connection;
        JobStore.OwnClient client = conn == null ? null : clients.get(conn);
        if (node != null && client != null && node.equals(client.node())) {
            LOG.debugf("The delayed-jobs store lost its connection to %s, where the wake subscription is; reconnecting",
                    ClusterConnections.address(node));
            replace(conn);
        } else {
            checkHeartbeatAfterLoss();
        }
    }

    /**
     * Sentinel announced a new master: the subscription moves there at once. On the old master it hears nothing of
     * what the scripts publish on the new one, until Sentinel demotes it, some 10 s later after a planned switchover.
     */
    void masterSwitched() {
        RedisConnection conn = connection;
        if (conn != null) {
            LOG.debugf("The Redis master changed; the delayed-jobs wake subscription moves to the new one");
            replace(conn);
        }
    }

    /**
     * {@link #checkHeartbeat()} once the store's connection was lost, at most once per {@value #HEARTBEAT_TIMEOUT_MS}
     * ms: the heartbeat needs a connection, and while Redis cannot be reached each failed opening is a lost connection
     * too, which would send the next heartbeat at once.
     */
    private void checkHeartbeatAfterLoss() {
        long now = System.nanoTime();
        long last = lastLossCheck.get();
        if (now - last >= TimeUnit.MILLISECONDS.toNanos(HEARTBEAT_TIMEOUT_MS) && lastLossCheck.compareAndSet(last, now)) {
            checkHeartbeat();
        }
    }

    /**
     * Publishes a heartbeat to this instance's own channel. When it does not come back, the subscription is broken
     * without Redis or the socket having said so: the connection is replaced, and the workers look at every shard.
     */
    void checkHeartbeat() {
        if (stopped) {
            return;
        }
        if (lookAgain) {
            // No subscription confirmed since the last loss (Redis refuses it to a user its ACL denies SUBSCRIBE or the
            // channels, say): no wake-up reaches the workers, so they look at every shard each poll interval rather
            // than each tenth (a security trial saw jobs 5 minutes late).
            workers.values().forEach(QueueWorker::wakeAll);
        }
        long heartbeat = heartbeatsSent.incrementAndGet();
        RedisConnection sentOn = connection;
        // Sent before Redis took the subscription (its SUBSCRIBE still on the way), the heartbeat is lost to it and
        // says nothing of it: then only the subscription must be confirmed by the time the heartbeat is judged.
        boolean judged = subscribed == sentOn;
        // On a cluster, published on another master: one published on the subscription's own node comes back even
        // when that node was removed from the cluster and runs on alone, hearing no wake-up (ClusterRemovedMasterTest
        // failed so when the last call that any node takes had gone there).
        JobStore.OwnClient client = sentOn == null ? null : clients.get(sentOn);
        store.publishElsewhere(heartbeatChannel, Long.toString(heartbeat), client == null ? null : client.node())
                .onComplete(ar -> vertx.setTimer(HEARTBEAT_TIMEOUT_MS,
                        id -> {
                            // A heartbeat sent before a reconnect says nothing of the new subscription, which has its own.
                            if (!stopped && sentOn != null && connection == sentOn
                                    && (judged ? heartbeatReceived < heartbeat : subscribed != sentOn)) {
                                LOG.infof("No heartbeat on the delayed-jobs wake channels within %d ms; reconnecting",
                                        HEARTBEAT_TIMEOUT_MS);
                                replace(sentOn);
                            }
                        }));
    }

    void stop() {
        stopped = true;
        RedisConnection conn;
        synchronized (this) {
            conn = connection;
            connection = null;
        }
        if (conn != null) {
            close(conn);
        }
    }
}
