package io.quarkiverse.delayedjobs.runtime.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.impl.VertxInternal;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * The store's calls on a Redis Cluster: one {@link SharedConnection} per master, each call sent to the master of its
 * key's slot by the slot map ({@code CLUSTER SLOTS}). A master that cannot be reached fails only the calls of its own
 * slots: the Vert.x cluster connection opens only once it reaches every master, so one node down or frozen would stop
 * the calls of every shard until the cluster failed it over.
 * <p>
 * The map is read again, at most once a second, when a call fails without an answer from Redis (a node down, frozen or
 * gone), and when a node answers {@code CLUSTERDOWN}; a {@code MOVED} answer names the slot's new master at once, and
 * the call goes there. {@code ASK} (a slot being migrated) sends the call to the importing node after an
 * {@code ASKING}; {@code TRYAGAIN} (a call's keys split by a migration) sends it again every 100 ms, for at most
 * {@code redis-timeout}.
 */
public final class ClusterConnections implements StoreConnection {

    /** The number of hash slots of a Redis Cluster. */
    public static final int SLOTS = 16384;
    /** How many redirections ({@code MOVED}, {@code ASK}) one call follows. */
    private static final int MOST_REDIRECTS = 5;
    private static final long TRY_AGAIN_DELAY_MS = 100;
    private static final long REFRESH_PACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final String CLOSED = "The delayed-jobs connections to Redis are closed";

    /** Copies of the options of the configured cluster client, for the client of each node. */
    private final Supplier<RedisOptions> options;
    private final Vertx vertx;
    private final long timeoutMs;
    /** Told the endpoint of a node whose connection is given up (see {@link SharedConnection}). */
    private final Consumer<String> lost;
    private final Context context;
    private final Map<String, SharedConnection> nodes = new ConcurrentHashMap<>();
    /** Connections to nodes gone from the map, closed a little later (see retire). */
    private final Set<SharedConnection> retired = ConcurrentHashMap.newKeySet();
    /** Calls sent and not yet ended, on any node, which {@link #close()} waits for. */
    private final CallsInFlight inFlight = new CallsInFlight();
    /** The master of each slot, as an endpoint URI; null until the map was first read. */
    private volatile String[] owners;
    /** The node that answered last: calls that any node takes go there. */
    private volatile String lastAnswered;
    /** Each new client, and each call that any node takes while none answered last, goes to the next master. */
    private final AtomicInteger nextNode = new AtomicInteger();
    /** When the connection to each node was last given up ({@link System#nanoTime()}). */
    private final Map<String, Long> lostAt = new ConcurrentHashMap<>();
    /** Guarded by {@code this}. */
    private Future<String[]> refreshing;
    private long lastRefreshNanos;
    private boolean refreshPlanned;
    /** A reading was asked for while one was under way. */
    private boolean refreshAfter;
    /** How many maps read were installed, so that a slot's move recorded on an older one is dropped. */
    private int installs;
    /** Why the last reading failed, while no map was ever read: calls fail with it until the next reading. */
    private Throwable lastReadingFailure;
    private volatile boolean closed;

    ClusterConnections(Supplier<RedisOptions> options, Vertx vertx, long timeoutMs, Consumer<String> lost) {
        this.options = options;
        this.vertx = vertx;
        this.timeoutMs = timeoutMs;
        this.lost = lost;
        this.context = ((VertxInternal) vertx).createEventLoopContext();
        this.lastRefreshNanos = System.nanoTime() - REFRESH_PACE_NANOS;
    }

    @Override
    public Context context() {
        return context;
    }

    @Override
    public String nodeOf(String key) {
        String[] map = owners;
        return map == null ? null : map[slotOf(key)];
    }

    @Override
    public Future<Response> send(String key, Request request) {
        inFlight.started();
        Future<Response> answer;
        try {
            answer = send(key == null ? -1 : slotOf(key), request, 0,
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        } catch (RuntimeException e) {
            answer = Future.failedFuture(e); // no client to make for the first map (an inactive Quarkus client)
        }
        // Counted down after the caller's own handlers of the answer ran: a call they send next, on any node, is
        // counted before this one ends (see close()).
        answer.onComplete(ar -> vertx.runOnContext(v -> inFlight.ended()));
        return answer;
    }

    @Override
    public Future<Response> sendElsewhere(String node, Request request) {
        if (node == null) {
            return send(null, request);
        }
        inFlight.started();
        Future<Response> answer = owners().compose(map -> {
            String[] others = Arrays.stream(map).filter(e -> e != null && !e.equals(node)).distinct()
                    .toArray(String[]::new);
            // The master that answered last, as for the calls any node takes, unless it is that node or left the map.
            String last = lastAnswered;
            String endpoint = last != null && Arrays.asList(others).contains(last) ? last
                    : others.length == 0 ? node : others[Math.floorMod(nextNode.getAndIncrement(), others.length)];
            return sendTo(endpoint, request, false);
        });
        answer.onComplete(ar -> vertx.runOnContext(v -> inFlight.ended()));
        answer.onFailure(e -> refreshSoon());
        return answer;
    }

    /** Scans each master of the last slot map; counted as a call in flight, which {@link #close()} waits for. */
    @Override
    public Future<List<String>> keys(String pattern) {
        inFlight.started();
        Future<List<String>> keys = owners().compose(map -> {
            List<Future<List<String>>> each = Arrays.stream(map).filter(e -> e != null).distinct()
                    .map(master -> StoreConnection.scan(request -> sendTo(master, request, false), pattern)).toList();
            return Future.all(each).map(all -> each.stream().flatMap(f -> f.result().stream()).toList());
        });
        keys.onComplete(ar -> vertx.runOnContext(v -> inFlight.ended()));
        return keys;
    }

    /** {@code deadline}: until when ({@link System#nanoTime()}) the call is sent again on {@code TRYAGAIN}. */
    private Future<Response> send(int slot, Request request, int redirects, long deadline) {
        return owners().compose(map -> {
            String endpoint = slot < 0 ? anyMaster(map) : map[slot];
            if (endpoint == null) {
                refreshSoon();
                return Future.failedFuture("No master of the Redis Cluster serves slot " + slot + " (CLUSTER SLOTS)");
            }
            return sendTo(endpoint, request, false).onComplete(ar -> {
                if (ar.succeeded()) {
                    lastAnswered = endpoint;
                } else if (!(ar.cause() instanceof Response) && endpoint.equals(lastAnswered)) {
                    lastAnswered = null; // the calls that any node takes go elsewhere
                }
            });
        }).recover(e -> redirect(slot, request, redirects, deadline, e));
    }

    /** Follows a redirection or a retry that the failure asks for; otherwise reads the map again if Redis did not answer. */
    private Future<Response> redirect(int slot, Request request, int redirects, long deadline, Throwable failure) {
        if (!(failure instanceof Response)) {
            refreshSoon(); // no answer from Redis: a node down, frozen, or gone from the cluster
            return Future.failedFuture(failure);
        }
        String message = failure.getMessage() == null ? "" : failure.getMessage();
        if (slot >= 0 && redirects < MOST_REDIRECTS && message.startsWith("MOVED ")) {
            String target = endpointOf(message);
            if (target != null) {
                moved(slot, target);
            }
            refreshSoon();
            return send(slot, request, redirects + 1, deadline);
        }
        if (slot >= 0 && redirects < MOST_REDIRECTS && message.startsWith("ASK ")) {
            String target = endpointOf(message);
            if (target != null) {
                // The importing node answers TRYAGAIN while it lacks some of the call's keys: a script's keys that do
                // not exist yet never reach it, so the call waits for the migration's end, when the old node answers
                // MOVED.
                return sendTo(target, request, true).recover(e -> e instanceof Response && e.getMessage() != null
                        && e.getMessage().startsWith("TRYAGAIN") ? later(slot, request, redirects, deadline, e)
                                : redirect(slot, request, redirects + 1, deadline, e));
            }
        }
        if (slot >= 0 && message.startsWith("TRYAGAIN")) {
            return later(slot, request, redirects, deadline, failure);
        }
        if (message.startsWith("CLUSTERDOWN")) {
            refreshSoon();
        }
        return Future.failedFuture(failure);
    }

    /**
     * Records the new master of a slot on a copy of the map: a map read since (fresher) stays, and another slot's move
     * recorded meanwhile too. The other slots that moved with it follow with the map read next.
     */
    private void moved(int slot, String target) {
        while (true) {
            String[] map;
            int generation;
            synchronized (this) {
                map = owners;
                generation = installs;
            }
            if (map == null || target.equals(map[slot])) {
                return;
            }
            String[] moved = map.clone();
            moved[slot] = target;
            synchronized (this) {
                if (installs != generation) {
                    return;
                }
                if (owners == map) {
                    owners = moved;
                    return;
                }
            }
        }
    }

    /** Sends the call again a little later, while the migration of its slot goes on, until its deadline. */
    private Future<Response> later(int slot, Request request, int redirects, long deadline, Throwable failure) {
        if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TRY_AGAIN_DELAY_MS) - deadline > 0) {
            return Future.failedFuture(failure);
        }
        Promise<Response> answer = Promise.promise();
        vertx.setTimer(TRY_AGAIN_DELAY_MS, id -> send(slot, request, redirects, deadline).onComplete(answer));
        return answer.future();
    }

    /** The endpoint a {@code MOVED} or {@code ASK} answer names ({@code MOVED 3999 127.0.0.1:6381}). */
    private String endpointOf(String message) {
        String address = message.substring(message.lastIndexOf(' ') + 1);
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            return null;
        }
        String template = lastAnswered != null ? lastAnswered : options.get().getEndpoint();
        try {
            return endpoint(template, address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private Future<String[]> owners() {
        if (closed) {
            return Future.failedFuture(CLOSED);
        }
        String[] map = owners;
        if (map != null) {
            return Future.succeededFuture(map);
        }
        // No map yet: readings at most once a second, as later ones, rather than one per call while none answers.
        synchronized (this) {
            if (refreshing == null && lastReadingFailure != null
                    && System.nanoTime() - lastRefreshNanos < REFRESH_PACE_NANOS) {
                return Future.failedFuture(lastReadingFailure);
            }
            return refresh();
        }
    }

    private String anyMaster(String[] map) {
        String last = lastAnswered;
        return last != null && nodes.containsKey(last) ? last : nextMaster(map);
    }

    /** The masters of the map in turn. */
    private String nextMaster(String[] map) {
        String[] masters = Arrays.stream(map).filter(e -> e != null).distinct().toArray(String[]::new);
        return masters.length == 0 ? null : masters[Math.floorMod(nextNode.getAndIncrement(), masters.length)];
    }

    private Future<Response> sendTo(String endpoint, Request request, boolean asking) {
        SharedConnection node = node(endpoint);
        if (node == null) {
            return Future.failedFuture(CLOSED);
        }
        return asking ? node.sendAsking(request) : node.send(null, request);
    }

    /** The connection to a node, made on first use; null once closed. */
    private SharedConnection node(String endpoint) {
        if (closed) {
            return null;
        }
        SharedConnection node = nodes.computeIfAbsent(endpoint, e -> {
            SharedConnection[] made = new SharedConnection[1];
            made[0] = new SharedConnection(() -> nodeOptions(e), vertx, timeoutMs, () -> {
                // A connection closed because its node left the map was not lost.
                if (nodes.get(e) == made[0]) {
                    lostAt.put(e, System.nanoTime());
                    lost.accept(e);
                    refreshSoon();
                }
            });
            return made[0];
        });
        // close() ran meanwhile, and may have missed it.
        if (closed && nodes.remove(endpoint, node)) {
            node.closeNow();
            return null;
        }
        return node;
    }

    private RedisOptions nodeOptions(String endpoint) {
        RedisOptions copy = options.get();
        copy.setType(RedisClientType.STANDALONE);
        copy.setEndpoints(new ArrayList<>(List.of(endpoint)));
        return copy;
    }

    /**
     * Reads the map again now, or once a second has passed since the last reading; after the reading under way, which
     * may have been answered before what calls for this one.
     */
    private synchronized void refreshSoon() {
        if (closed || refreshPlanned) {
            return;
        }
        if (refreshing != null) {
            refreshAfter = true;
            return;
        }
        long wait = REFRESH_PACE_NANOS - (System.nanoTime() - lastRefreshNanos);
        if (wait <= 0) {
            refresh();
            return;
        }
        refreshPlanned = true;
        vertx.setTimer(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)), id -> {
            synchronized (this) {
                refreshPlanned = false;
            }
            refresh();
        });
    }

    /**
     * Reads the slot map from the first node that answers: the one that answered last, the other masters known, then
     * the configured endpoints. A node that answers nothing costs {@code redis-timeout} before the next is asked.
     */
    private synchronized Future<String[]> refresh() {
        if (refreshing != null) {
            return refreshing;
        }
        lastRefreshNanos = System.nanoTime();
        Set<String> candidates = new LinkedHashSet<>();
        String last = lastAnswered;
        if (last != null && nodes.containsKey(last)) {
            candidates.add(last);
        }
        String[] map = owners;
        if (map != null) {
            for (String endpoint : map) {
                if (endpoint != null) {
                    candidates.add(endpoint);
                }
            }
        }
        candidates.addAll(options.get().getEndpoints());
        Future<String[]> read = readSlots(new ArrayList<>(candidates), 0, null);
        refreshing = read;
        read.onComplete(ar -> {
            boolean again;
            synchronized (this) {
                refreshing = null;
                lastReadingFailure = ar.failed() ? ar.cause() : null;
                again = refreshAfter;
                refreshAfter = false;
            }
            if (again) {
                refreshSoon();
            }
        });
        return read;
    }

    private Future<String[]> readSlots(List<String> candidates, int index, Throwable last) {
        if (index >= candidates.size()) {
            return Future.failedFuture(new IllegalStateException(
                    "No node of the Redis Cluster gave its slot map (CLUSTER SLOTS): "
                            + (last == null ? "no endpoint" : last.getMessage()),
                    last));
        }
        String endpoint = candidates.get(index);
        return sendTo(endpoint, Request.cmd(Command.CLUSTER).arg("SLOTS"), false)
                .map(reply -> install(endpoint, reply))
                .recover(e -> readSlots(candidates, index + 1, e));
    }

    /**
     * Keeps the map a node gave, and closes the connections to nodes that no longer master a slot. A slot the node
     * names no master of (a node that has not joined the cluster yet) keeps the one known before if the node names that
     * master for other slots; a node that names no slot at all is not taken.
     */
    private String[] install(String askedEndpoint, Response reply) {
        if (reply == null || reply.size() == 0) {
            throw new IllegalStateException("The node " + address(askedEndpoint) + " knows no slot of the cluster");
        }
        String[] map = new String[SLOTS];
        Set<String> named = new HashSet<>();
        for (Response range : reply) {
            Response master = range.get(2);
            String host = master.get(0) == null ? null : master.get(0).toString();
            String endpoint = endpoint(askedEndpoint, host, master.get(1).toInteger());
            named.add(endpoint);
            for (int slot = range.get(0).toInteger(); slot <= range.get(1).toInteger(); slot++) {
                map[slot] = endpoint;
            }
        }
        String[] before = owners;
        if (before != null) {
            for (int slot = 0; slot < SLOTS; slot++) {
                // A master the reply still names, for slots it names no master of: the node's view is partial.
                if (map[slot] == null && before[slot] != null && named.contains(before[slot])) {
                    map[slot] = before[slot];
                }
            }
        }
        synchronized (this) {
            owners = map;
            installs++;
        }
        retireOthers();
        // A call that read the map before may have opened a connection to a node gone from it since.
        vertx.setTimer(timeoutMs + SharedConnection.CLOSE_MARGIN_MS, id -> retireOthers());
        return map;
    }

    /** Retires the connections to nodes that master no slot of the map. */
    private void retireOthers() {
        String[] map = owners;
        if (map == null) {
            return;
        }
        Set<String> masters = new HashSet<>(Arrays.asList(map));
        for (String endpoint : List.copyOf(nodes.keySet())) {
            if (!masters.contains(endpoint)) {
                SharedConnection gone = nodes.remove(endpoint);
                if (gone != null) {
                    retire(gone);
                }
            }
        }
    }

    /**
     * Closes the connection to a node that no longer masters a slot once the calls on it had their time: a call sent
     * by the map before has its answer ({@code MOVED}, which it follows) or its timeout, rather than a closed
     * connection.
     */
    private void retire(SharedConnection gone) {
        retired.add(gone);
        vertx.setTimer(timeoutMs + SharedConnection.CLOSE_MARGIN_MS, id -> {
            if (retired.remove(gone)) {
                gone.closeNow();
            }
        });
    }

    /**
     * The host and port of an endpoint URI, for messages and logs: the URI may carry the password, which error texts
     * would take to the readiness check's answer, to callers and to the log.
     */
    public static String address(String endpoint) {
        int schemeEnd = endpoint.indexOf("://");
        String rest = schemeEnd < 0 ? endpoint : endpoint.substring(schemeEnd + 3);
        String authority = rest.substring(0, authorityEnd(rest));
        return authority.substring(authority.lastIndexOf('@') + 1);
    }

    /** Where the authority (credentials, host, port) of a URI without its scheme ends. */
    private static int authorityEnd(String rest) {
        for (int i = 0; i < rest.length(); i++) {
            if (rest.charAt(i) == '/' || rest.charAt(i) == '?') {
                return i;
            }
        }
        return rest.length();
    }

    /**
     * The endpoint URI of a node the cluster names by host and port, with everything else of {@code template}: scheme,
     * credentials (before the host, or as query parameters), path and query. A node whose host the cluster does not
     * know ({@code ?} or empty) is on the template's host.
     */
    static String endpoint(String template, String host, int port) {
        int schemeEnd = template.indexOf("://");
        String scheme = schemeEnd < 0 ? "redis://" : template.substring(0, schemeEnd + 3);
        String rest = schemeEnd < 0 ? template : template.substring(schemeEnd + 3);
        int authorityEnd = authorityEnd(rest);
        String authority = rest.substring(0, authorityEnd);
        int at = authority.lastIndexOf('@');
        String hostAndPort = authority.substring(at + 1);
        String onHost;
        if (host != null && !host.isEmpty() && !host.equals("?")) {
            onHost = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host; // IPv6
        } else if (hostAndPort.startsWith("[")) {
            onHost = hostAndPort.substring(0, hostAndPort.indexOf(']') + 1);
        } else {
            int colon = hostAndPort.lastIndexOf(':');
            onHost = colon < 0 ? hostAndPort : hostAndPort.substring(0, colon);
        }
        return scheme + authority.substring(0, at + 1) + onHost + ":" + port + rest.substring(authorityEnd);
    }

    /**
     * A client of the next master in turn, for the wake subscription, passing over those whose connection was given up
     * lately, unless all were: a frozen master takes connections and answers nothing, so that a subscription opened
     * there would wait for its handshake until the connect timeout, with no wake-ups meanwhile. Lately is within twice
     * that timeout: the calls to a frozen master give its connection up at least that often (a call's timeout, then
     * the opening of the next connection). The map is read afresh first (a subscription opens rarely): a master whose
     * slots were all moved away, then removed from the cluster where it keeps running, stays in a map that no call of
     * those slots has corrected since, and a subscription there hears no wake-up (an operations trial saw it).
     */
    @Override
    public Future<JobStore.OwnClient> newClient() {
        return refresh().recover(e -> owners()).compose(map -> {
            long now = System.nanoTime();
            long lately = TimeUnit.MILLISECONDS.toNanos(2 * SharedConnection.CONNECT_TIMEOUTS * timeoutMs);
            String[] answering = Arrays.stream(map).filter(e -> e != null && !lostWithin(e, lately, now))
                    .toArray(String[]::new);
            String endpoint = nextMaster(answering.length > 0 ? answering : map);
            return endpoint == null ? Future.failedFuture("The Redis Cluster's slot map names no master")
                    : Future.succeededFuture(new JobStore.OwnClient(Redis.createClient(vertx, nodeOptions(endpoint)),
                            endpoint));
        });
    }

    /** Whether the connection to {@code endpoint} was given up within {@code nanos} before {@code now}. */
    private boolean lostWithin(String endpoint, long nanos, long now) {
        Long at = lostAt.get(endpoint);
        return at != null && now - at < nanos;
    }

    /**
     * Closes the connections once no call is in flight, waiting at most {@code redis-timeout}, as
     * {@link SharedConnection#close()} does: the calls sent meanwhile, on any node, are answered too.
     */
    @Override
    public void close() {
        inFlight.awaitNone(timeoutMs + SharedConnection.CLOSE_MARGIN_MS);
        closed = true;
        for (String endpoint : List.copyOf(nodes.keySet())) {
            SharedConnection node = nodes.remove(endpoint);
            if (node != null) {
                node.closeNow();
            }
        }
        for (SharedConnection node : List.copyOf(retired)) {
            if (retired.remove(node)) {
                node.closeNow();
            }
        }
    }

    /**
     * The cluster slot of a key: CRC16 (XMODEM) of its hash tag (the text between the first {@code {} and the next
     * {@code }}, when not empty), or of the whole key, modulo {@value #SLOTS}.
     */
    public static int slotOf(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        int to = bytes.length;
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            if (close > open + 1) {
                // Braces are one byte in UTF-8: their byte offsets follow from the text before them.
                from = key.substring(0, open + 1).getBytes(StandardCharsets.UTF_8).length;
                to = from + key.substring(open + 1, close).getBytes(StandardCharsets.UTF_8).length;
            }
        }
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return (crc & 0xFFFF) % SLOTS;
    }
}
