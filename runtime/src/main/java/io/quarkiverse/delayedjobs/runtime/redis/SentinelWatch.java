package io.quarkiverse.delayedjobs.runtime.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

import org.jboss.logging.Logger;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.RedisRole;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.ResponseType;

/**
 * Listens on every Sentinel for its announcement of a new master ({@code +switch-master}) and tells the first one of
 * each. The Vert.x client listens on one Sentinel only, and trials showed both ways that leaves the engine writing to
 * the old master, whose writes the switch then drops: a Sentinel that restarted ended that subscription without an
 * error, and it never came back; and the Sentinel that leads a failover announces it only once it has reconfigured
 * every replica, seconds after the others. A subscription that ends is opened again a second later, and so is one
 * that leaves a {@code PING} unanswered: a Sentinel gone without closing its connections (its host lost, the network
 * cut) would otherwise keep it open and silent for hours, until TCP gives up.
 */
final class SentinelWatch {

    private static final Logger LOG = Logger.getLogger(SentinelWatch.class);
    private static final long RECONNECT_DELAY_MS = 1000;
    /** How often each subscription is asked for a {@code PING}, and how long its answer may take. */
    private static final long PING_INTERVAL_MS = 5000;
    private static final long PING_TIMEOUT_MS = 5000;
    private static final long CONNECT_TIMEOUT_MS = 10_000;
    private static final String CHANNEL = "+switch-master";

    private final RedisOptions options;
    private final Vertx vertx;
    /** Told the host and port of each new master announced. */
    private final BiConsumer<String, Integer> announced;
    /** The clients of the subscriptions open or opening: each is closed once, by whichever ends it. */
    private final Set<Redis> clients = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    SentinelWatch(RedisOptions options, Vertx vertx, BiConsumer<String, Integer> announced) {
        this.options = options;
        this.vertx = vertx;
        this.announced = announced;
    }

    /** Whether {@code options} reach a master through Sentinel: those whose master the engine must follow. */
    static boolean follows(RedisOptions options) {
        return options.getType() == RedisClientType.SENTINEL && options.getRole() == RedisRole.MASTER;
    }

    void start() {
        for (String sentinel : options.getEndpoints()) {
            listen(sentinel);
        }
    }

    private void listen(String sentinel) {
        if (stopped) {
            return;
        }
        // A plain client of that one Sentinel, with the credentials and TLS of its endpoint: a Sentinel client in the
        // Sentinel role would ask it for all the Sentinels and open its connection on any of them (a trial found two
        // subscriptions of an instance on one Sentinel and none on another).
        RedisOptions one = new RedisOptions(options).setType(RedisClientType.STANDALONE)
                .setEndpoints(new ArrayList<>(List.of(sentinel))).setAutoFailover(false);
        Redis client = Redis.createClient(vertx, one);
        clients.add(client);
        if (stopped && clients.remove(client)) {
            client.close(); // stop() ran meanwhile, and may have missed it
            return;
        }
        // A Sentinel that takes the connection and answers nothing would hold the handshake for good.
        long deadline = vertx.setTimer(CONNECT_TIMEOUT_MS, id -> listenAgain(client, sentinel,
                new TimeoutException("not open within " + CONNECT_TIMEOUT_MS + " ms")));
        client.connect().onComplete(ar -> vertx.cancelTimer(deadline)).compose(conn -> {
            conn.handler(this::onMessage);
            conn.exceptionHandler(e -> listenAgain(client, sentinel, e));
            conn.endHandler(v -> listenAgain(client, sentinel, null));
            vertx.setPeriodic(PING_INTERVAL_MS, timer -> {
                if (clients.contains(client)) {
                    ping(conn).onFailure(e -> listenAgain(client, sentinel, e));
                } else {
                    vertx.cancelTimer(timer);
                }
            });
            return conn.send(Request.cmd(Command.SUBSCRIBE).arg(CHANNEL));
        }).onFailure(e -> listenAgain(client, sentinel, e));
    }

    /** Fails when the Sentinel does not answer within {@value #PING_TIMEOUT_MS} ms. */
    private Future<Void> ping(RedisConnection conn) {
        Promise<Void> answered = Promise.promise();
        long timer = vertx.setTimer(PING_TIMEOUT_MS,
                id -> answered.tryFail(new TimeoutException("no answer to PING within " + PING_TIMEOUT_MS + " ms")));
        conn.send(Request.cmd(Command.PING)).onComplete(ar -> {
            vertx.cancelTimer(timer);
            if (ar.succeeded()) {
                answered.tryComplete();
            } else {
                answered.tryFail(ar.cause());
            }
        });
        return answered.future();
    }

    private void listenAgain(Redis client, String sentinel, Throwable cause) {
        if (!clients.remove(client)) {
            return; // ended already
        }
        client.close();
        if (stopped) {
            return;
        }
        // A silent Sentinel is worth knowing of; one that refuses connections would say so every second.
        LOG.logf(cause instanceof TimeoutException ? Logger.Level.INFO : Logger.Level.DEBUG,
                "The delayed-jobs subscription to Sentinel %s ended (%s); again in %d ms",
                ClusterConnections.address(sentinel), cause == null ? "closed" : cause.getMessage(), RECONNECT_DELAY_MS);
        vertx.setTimer(RECONNECT_DELAY_MS, id -> listen(sentinel));
    }

    /** {@code message +switch-master "<name> <old host> <old port> <new host> <new port>"}. */
    private void onMessage(Response message) {
        if (message.type() != ResponseType.MULTI && message.type() != ResponseType.PUSH || message.size() != 3
                || !"message".equals(message.get(0).toString())) {
            return;
        }
        String[] parts = message.get(2).toString().split(" ");
        if (parts.length == 5 && parts[0].equals(options.getMasterName())) {
            try {
                announced.accept(parts[3], Integer.parseInt(parts[4]));
            } catch (NumberFormatException e) {
                LOG.debugf("Ignored a Sentinel announcement with no port: %s", message);
            }
        }
    }

    void stop() {
        stopped = true;
        for (Redis client : List.copyOf(clients)) {
            if (clients.remove(client)) {
                client.close();
            }
        }
    }
}
