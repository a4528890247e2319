package io.quarkiverse.delayedjobs.runtime.redis;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Singleton;

import io.quarkus.redis.client.RedisOptionsCustomizer;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.tracing.TracingPolicy;
import io.vertx.redis.client.RedisClientType;
import io.vertx.redis.client.RedisOptions;

/**
 * Keeps the options Quarkus builds for each Redis client it creates (hosts, credentials, TLS, client type), so that the
 * engine can open a client of its own with them: one it can close with its connection when Redis stops answering.
 * Quarkus hands every customizer the finished options object just before it creates the client; this keeps a
 * reference and copies it only when asked, so that customizers running after this one are counted too.
 */
@Singleton
public class RedisClientOptions implements RedisOptionsCustomizer {

    /** The client name and pool name of the engine's connections in the Vert.x metrics of Redis clients. */
    public static final String METRICS_NAME = "delayed-jobs";

    private final Map<String, RedisOptions> byClient = new ConcurrentHashMap<>();

    @Override
    public void customize(String clientName, RedisOptions options) {
        byClient.put(clientName, options);
    }

    /** Whether the named client is a cluster client ({@code client-type=cluster}); false for one not active. */
    public boolean isCluster(String clientName) {
        RedisOptions options = byClient.get(clientName);
        return options != null && options.getType() == RedisClientType.CLUSTER;
    }

    /**
     * A copy of the options of the named client, for a client of the engine's own. Quarkus creates the clients at
     * startup, those that are active: a client without hosts has none.
     * <p>
     * A Sentinel client of the master does not follow Sentinel's announcements itself, whatever
     * {@code quarkus.redis.auto-failover} says: the engine's {@link SentinelWatch} listens on every Sentinel and moves
     * the engine's connections, where the client listens on one only (see there why that is not enough).
     */
    public RedisOptions copyOf(String clientName) {
        RedisOptions options = byClient.get(clientName);
        if (options == null) {
            throw new IllegalStateException("The Redis client '" + clientName + "' is not active (are its hosts set?)");
        }
        RedisOptions copy = new RedisOptions(options);
        // Vert.x metrics of its own: under the client's names they counted the engine's calls with the application's.
        // The copy shares the client's network options: those are copied too, so that the client's stay as they were.
        copy.setPoolName(METRICS_NAME).setNetClientOptions(
                new NetClientOptions(options.getNetClientOptions()).setMetricsName("redis|" + METRICS_NAME));
        if (SentinelWatch.follows(copy)) {
            copy.setAutoFailover(false);
        }
        // With OpenTelemetry, every claim, renewal and heartbeat would be a trace of its own; a job's run has its span.
        copy.setTracingPolicy(TracingPolicy.IGNORE);
        return copy;
    }
}
