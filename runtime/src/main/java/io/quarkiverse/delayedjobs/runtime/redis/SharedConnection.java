package io.quarkiverse.delayedjobs.runtime.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.jboss.logging.Logger;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.impl.VertxInternal;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisConnection;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;
import io.vertx.redis.client.impl.types.ErrorType;

/**
 * One connection on which every call of the job protocol is pipelined. Borrowing a pooled connection per call would
 * cap the calls in flight at the pool size and fail the rest once the pool's wait queue is full; Redis runs commands
 * one at a time anyway. The connection itself holds at most {@code max-waiting-handlers} calls unanswered and fails
 * the next ones: those beyond wait here for room, in the order they were made.
 * <p>
 * Each connection comes from a Redis client of its own, made with {@code options}, those of the configured Quarkus
 * client. A broken connection is replaced on the next call, and so is one on which a call went unanswered for
 * {@code redis-timeout}: its client is closed, which closes the socket even when the network dropped it silently. (A
 * pooled connection only goes back to its pool when closed, and the next connect would get the same dead socket.)
 * <p>
 * On Sentinel, a {@link SentinelWatch} tells of each new master as soon as one Sentinel announces it: the connection
 * is replaced by one to that master at once, and the calls in flight on the old one fail (their callers were not
 * told they succeeded, and what the old master takes from now on the switch drops). The next connections go to the
 * announced master too, until one of them is lost for another reason: then Sentinel is asked again.
 */
final class SharedConnection implements StoreConnection {

    private static final Logger LOG = Logger.getLogger(SharedConnection.class);

    /** A client and the one connection it opens. */
    private static final class Link {
        final Redis client;
        final Future<RedisConnection> connection;
        /** On Sentinel, the announced master it was opened to; null when Sentinel named it. */
        final String announcedMaster;
        /**
         * Set when a call on it went unanswered, or it did not open in time: the failure of the calls still on it,
         * a timeout as well, not a closed connection, saying why it came sooner than their own would have.
         */
        volatile TimeoutException unanswered;
        /** The most calls the connection holds unanswered: its client fails the next ones. */
        private final int room;
        /** Where the calls that waited for room go, one after the other, in the order they were made. */
        private final Context context;
        /** Calls handed to the connection and not yet answered, and those waiting for room; guarded by the link. */
        private int handed;
        private final Queue<Runnable> waiting = new ArrayDeque<>();

        Link(Redis client, Future<RedisConnection> connection, String announcedMaster, int room, Context context) {
            this.client = client;
            this.connection = connection;
            this.announcedMaster = announcedMaster;
            this.room = Math.max(1, room);
            this.context = context;
        }

        /** Hands a call to the connection, or keeps it, after those kept already, until an answer makes room. */
        void hand(Runnable call) {
            synchronized (this) {
                if (handed >= room || !waiting.isEmpty()) {
                    waiting.add(call);
                    return;
                }
                handed++;
            }
            call.run();
        }

        /**
         * A call handed to the connection ended. The calls waiting for room go on the link's context: in order, and
         * not from within the call that ended (a closed connection fails a call as it is made).
         */
        void ended() {
            boolean waited;
            synchronized (this) {
                handed--;
                waited = !waiting.isEmpty();
            }
            if (waited) {
                context.runOnContext(v -> handWaiting());
            }
        }

        private void handWaiting() {
            while (true) {
                Runnable next;
                synchronized (this) {
                    if (handed >= room || waiting.isEmpty()) {
                        return;
                    }
                    next = waiting.poll();
                    handed++;
                }
                next.run();
            }
        }
    }

    /** How many times {@code redis-timeout} opening a connection may take: its handshake is several round trips. */
    static final int CONNECT_TIMEOUTS = 5;
    /** Beyond {@code redis-timeout}, so that a call in flight at the close fails by its own timeout, which says why. */
    static final long CLOSE_MARGIN_MS = 100;

    private final Supplier<RedisOptions> options;
    private final Vertx vertx;
    /**
     * The event loop of every connection this opens: a call made there is written at once, with no hand-off to
     * another thread. Whatever thread made the store, this is an event loop's.
     */
    private final Context context;
    private final long timeoutMs;
    /** Told when a connection is given up: the server may lose its data before the next one opens (a restart). */
    private final Runnable lost;
    /** Told when Sentinel announced a new master, after the connection moved there. */
    private final Runnable switched;
    /** Calls sent and not yet answered nor timed out, which {@link #close()} waits for. */
    private final CallsInFlight inFlight = new CallsInFlight();
    private Link current;
    private boolean closed;
    /** On Sentinel: the endpoint of the master announced last, where new connections go; null to ask Sentinel. */
    private String announcedMaster;
    /** On Sentinel, once the first connection opens. */
    private SentinelWatch watch;

    /** A connection to one server, or to a cluster node: no Sentinel to follow. */
    SharedConnection(Supplier<RedisOptions> options, Vertx vertx, long timeoutMs, Runnable lost) {
        this(options, vertx, timeoutMs, lost, () -> {
        });
    }

    SharedConnection(Supplier<RedisOptions> options, Vertx vertx, long timeoutMs, Runnable lost, Runnable switched) {
        this.options = options;
        this.vertx = vertx;
        this.context = ((VertxInternal) vertx).createEventLoopContext();
        this.timeoutMs = timeoutMs;
        this.lost = lost;
        this.switched = switched;
    }

    /** The event loop of the connection: work that ends in calls is best done there. */
    @Override
    public Context context() {
        return context;
    }

    @Override
    public String nodeOf(String key) {
        return null;
    }

    @Override
    public Future<JobStore.OwnClient> newClient() {
        RedisOptions clientOptions;
        synchronized (this) {
            clientOptions = optionsNow();
        }
        return Future.succeededFuture(new JobStore.OwnClient(Redis.createClient(vertx, clientOptions), null));
    }

    /**
     * The options of a new client: on Sentinel, those of the master announced last, if one was; the configured ones
     * otherwise. Starts watching the Sentinels on first use.
     */
    private RedisOptions optionsNow() {
        RedisOptions configured = options.get();
        if (watch == null && !closed && SentinelWatch.follows(configured)) {
            watch = new SentinelWatch(configured, vertx, this::masterAnnounced);
            watch.start();
        }
        String master = announcedMaster;
        if (master == null) {
            return configured;
        }
        return configured.setType(RedisClientType.STANDALONE).setEndpoints(new ArrayList<>(List.of(master)));
    }

    /**
     * A Sentinel announced a new master: the connection moves there, unless it is there already (every Sentinel
     * announces each switch).
     */
    private void masterAnnounced(String host, int port) {
        Link link;
        String master;
        synchronized (this) {
            // With the credentials and TLS of the Sentinel endpoints, as Vert.x connects to the master it is told of.
            master = ClusterConnections.endpoint(options.get().getEndpoint(), host, port);
            if (closed || master.equals(announcedMaster) && (current == null || master.equals(current.announcedMaster))) {
                return;
            }
            announcedMaster = master;
            link = current;
        }
        LOG.infof("Sentinel announced %s:%d as the Redis master: the delayed-jobs calls go there from now on", host, port);
        if (link != null) {
            drop(link, true);
        }
        switched.run();
    }

    /** Scans the one server. */
    @Override
    public Future<List<String>> keys(String pattern) {
        return StoreConnection.scan(request -> send(null, request), pattern);
    }

    /** Sends a request to the one server; {@code key} does not matter. */
    @Override
    public Future<Response> send(String key, Request request) {
        return send(request, false);
    }

    /**
     * Sends a request right after an {@code ASKING}, in one write, so that no other call comes between: a cluster node
     * importing the request's slot takes it then.
     */
    Future<Response> sendAsking(Request request) {
        return send(request, true).recover(e -> {
            // A batch that failed names the failing request: "ERR [1] NOSCRIPT ...". The caller reads the error itself.
            String message = e.getMessage();
            int end = message == null ? -1 : message.indexOf("] ");
            return Future.failedFuture(e instanceof Response && end > 0 && message.startsWith("ERR [")
                    ? ErrorType.create(message.substring(end + 2))
                    : e);
        });
    }

    /**
     * Sends a request; it fails after {@code redis-timeout} without an answer, time spent connecting included, and is
     * then not sent at all if the connection had not opened yet.
     */
    private Future<Response> send(Request request, boolean asking) {
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
        // Counted down after the caller's own handlers of the answer ran: a call they send next (a producer's jobs that
        // waited for this one, a script's text after NOSCRIPT) is counted before this one ends.
        answer.future().onComplete(ar -> vertx.runOnContext(v -> inFlight.ended()));
        // A call that waits for the connection to open spends part of its time on the opening, which has a deadline of
        // its own: timing out, it does not condemn the connection (else, when opening and a call take longer than the
        // timeout together, every new connection would be dropped by its first call).
        boolean waitsForOpening = !link.connection.isComplete();
        long timer = vertx.setTimer(timeoutMs, id -> {
            if (!answer.future().isComplete()) {
                if (link.connection.succeeded() && !waitsForOpening) {
                    // The answers still due on this connection would no longer match their calls: it goes, before
                    // the caller hears of it and calls again. (A connection still opening has its own deadline: it
                    // takes several round trips.)
                    link.unanswered = new TimeoutException("Redis did not answer another call within " + timeoutMs
                            + " ms on the connection this call was on, which was closed");
                    drop(link);
                }
                answer.tryFail(unanswered());
            }
        });
        link.hand(() -> {
            if (answer.future().isComplete()) {
                link.ended(); // it ran out of time waiting for room: Redis never gets it
                return;
            }
            link.connection.compose(conn -> answer.future().isComplete()
                    // Timed out while the connection opened: the caller gave up on it, Redis must not run it.
                    ? Future.<Response> failedFuture("abandoned")
                    : asking
                            ? conn.batch(List.of(Request.cmd(Command.ASKING), request)).map(answers -> answers.get(1))
                            : conn.send(request))
                    .onComplete(ar -> {
                        vertx.cancelTimer(timer);
                        if (ar.succeeded()) {
                            answer.tryComplete(ar.result());
                        } else {
                            if (closedUnderneath(ar.cause())) {
                                drop(link);
                            }
                            answer.tryFail(link.unanswered != null ? link.unanswered : ar.cause());
                        }
                        link.ended();
                    });
        });
        return answer.future();
    }

    /**
     * Whether a call failed because its connection is closed. The connection's end handler tells of that too, but not
     * always first; and with the Vert.x client's own Sentinel failover (which the engine's clients no longer use), it
     * swapped the socket under the connection and the handlers stayed with the old one.
     */
    private static boolean closedUnderneath(Throwable failure) {
        String message = failure.getMessage();
        // Sent on a closed connection; and in flight as it closed.
        return "Connection is closed".equals(message) || "CONNECTION_CLOSED".equals(message);
    }

    private TimeoutException unanswered() {
        return new TimeoutException("Redis did not answer within " + timeoutMs + " ms");
    }

    /**
     * The link in use, or a new one connecting; null once closed. A connection not open within
     * {@value #CONNECT_TIMEOUTS} times {@code redis-timeout} (a handshake Redis never answers) is given up.
     */
    private synchronized Link link() {
        if (closed) {
            return null;
        }
        if (current != null) {
            inFlight.started();
            return current;
        }
        RedisOptions clientOptions = optionsNow();
        Redis client = Redis.createClient(vertx, clientOptions);
        Promise<RedisConnection> connected = Promise.promise();
        Link link = new Link(client, connected.future(), announcedMaster, clientOptions.getMaxWaitingHandlers(),
                context);
        current = link;
        long deadline = vertx.setTimer(CONNECT_TIMEOUTS * timeoutMs, id -> {
            link.unanswered = new TimeoutException("Redis did not open a connection within " + CONNECT_TIMEOUTS
                    * timeoutMs + " ms");
            drop(link); // its connect fails, and with it the calls waiting for it
        });
        // Opened from the context, so that the connection lives on its event loop.
        context.runOnContext(opening -> client.connect().onComplete(ar -> {
            vertx.cancelTimer(deadline);
            if (ar.succeeded()) {
                ar.result().exceptionHandler(e -> drop(link));
                ar.result().endHandler(v -> drop(link));
            } else {
                drop(link);
            }
            connected.handle(ar);
        }));
        inFlight.started();
        // Not 'current': a failed connect may have cleared it already, and the caller is to see that failure.
        return link;
    }

    /** Closes the link's client, and with it its connection, unless another link replaced it already. */
    private void drop(Link link) {
        drop(link, false);
    }

    /**
     * As {@link #drop(Link)}; {@code announced}: because Sentinel announced another master. A connection to an
     * announced master lost otherwise (it went down, or was demoted in a switch no Sentinel told of) sends the next
     * ones to the master Sentinel names.
     */
    private void drop(Link link, boolean announced) {
        synchronized (this) {
            if (current != link) {
                return;
            }
            current = null;
            if (!announced && link.announcedMaster != null && link.announcedMaster.equals(announcedMaster)) {
                announcedMaster = null;
            }
        }
        lost.run();
        link.client.close();
    }

    /**
     * Closes the connection once no call is in flight, waiting at most {@code redis-timeout} (by then each call in
     * flight has had its answer or its timeout), so that the calls made until the application stops get their answer;
     * calls sent meanwhile, such as a producer's jobs that waited for those, are answered too. New calls fail once it
     * is closed. It does not wait on an event loop, which must not block.
     */
    @Override
    public void close() {
        inFlight.awaitNone(timeoutMs + CLOSE_MARGIN_MS);
        closeNow();
    }

    /** Closes the connection at once: the calls in flight fail. */
    void closeNow() {
        Link link;
        synchronized (this) {
            closed = true;
            link = current;
            if (watch != null) {
                watch.stop();
            }
        }
        if (link != null) {
            drop(link);
        }
    }
}
