package io.quarkiverse.delayedjobs.runtime.redis;

import io.vertx.core.Context;
import io.vertx.core.Future;
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

    /** The endpoint of the cluster master that serves {@code key} by the last slot map; null when not on a cluster. */
    String nodeOf(String key);

    /** The event loop where work that ends in calls is best done. */
    Context context();

    /** A new client for a connection of the caller's own (the wake subscription), which the caller closes. */
    Future<JobStore.OwnClient> newClient();

    /** Closes the connections once the calls in flight are answered (see {@link SharedConnection#close()}). */
    void close();
}
