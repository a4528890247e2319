package io.quarkiverse.delayedjobs.runtime.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Where the store's calls go: one pipelined connection to one server ({@link SharedConnection}, standalone and Sentinel),
 * or one per node of a Redis Cluster ({@link ClusterConnections}).
 */
interface StoreConnection {

    /**
     * Sends a request; it fails after {@code redis-timeout} without an answer, and fails rather than throws. {@code key}: a key
     * the request touches,
     * whose cluster slot says which node takes it; null for a request that any node takes ({@code TIME},
     * {@code PUBLISH}).
     */
    Future<Response> send(String key, Request request);

    /**
     * Sends a request that any node takes to a node other than {@code node} (an endpoint of {@link #nodeOf}) when there
     * is one: on a cluster, another master of the map; elsewhere, the one server.
     */
    default Future<Response> sendElsewhere(String node, Request request) {
        return send(null, request);
    }

    /**
     * The keys that match {@code pattern} (of {@code SCAN ... MATCH}), on every server that holds keys: each master of a
     * cluster by the last slot map.
     */
    Future<List<String>> keys(String pattern);

    /** The most {@code SCAN} calls {@link #scan} makes on one server: a million keys looked at, for the Dev UI. */
    int MOST_SCANS = 1000;

    /** Scans one server, through {@code send}, from {@code cursor} to the end or {@link #MOST_SCANS} calls. */
    static Future<List<String>> scan(Function<Request, Future<Response>> send, String pattern, String cursor,
            List<String> found, int calls) {
        return send.apply(Request.cmd(Command.SCAN).arg(cursor).arg("MATCH").arg(pattern).arg("COUNT").arg(1000))
                .compose(page -> {
                    page.get(1).forEach(key -> found.add(key.toString()));
                    String next = page.get(0).toString();
                    return next.equals("0") || calls + 1 >= MOST_SCANS ? Future.succeededFuture(found)
                            : scan(send, pattern, next, found, calls + 1);
                });
    }

    /** Scans one server from the start. */
    static Future<List<String>> scan(Function<Request, Future<Response>> send, String pattern) {
        return scan(send, pattern, "0", new ArrayList<>(), 0);
    }

    /** The endpoint of the cluster master that serves {@code key} by the last slot map; null when not on a cluster. */
    String nodeOf(String key);

    /** The event loop where work that ends in calls is best done. */
    Context context();

    /** A new client for a connection of the caller's own (the wake subscription), which the caller closes. */
    Future<JobStore.OwnClient> newClient();

    /** Closes the connections once the calls in flight are answered (see {@link SharedConnection#close()}). */
    void close();
}
