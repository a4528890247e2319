package io.quarkiverse.delayedjobs.deployment.devservices;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.runtime.config.DelayedJobsBuildTimeConfig;
import io.quarkus.deployment.IsDevServicesSupportedByLaunchMode;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.BuildSteps;
import io.quarkus.deployment.builditem.DevServicesResultBuildItem;
import io.quarkus.deployment.builditem.DockerStatusBuildItem;
import io.quarkus.deployment.dev.devservices.DevServicesConfig;
import io.quarkus.redis.deployment.client.RedisBuildTimeConfig;
import io.quarkus.redis.deployment.client.RedisClientBuildTimeConfig;
import io.quarkus.redis.runtime.client.config.RedisConfig;
import io.quarkus.runtime.configuration.ConfigUtils;

/**
 * Dev Services without a container runtime: in dev and test mode, starts a {@code redis-server} from the
 * {@code PATH} for the Redis client of the extension when that client has no hosts and the Redis Dev Service of
 * {@code quarkus-redis-client} cannot provide a server, because no container runtime is available or because it is
 * disabled.
 * <p>
 * The server is an owned Dev Service: Quarkus starts it before the application, hands its URL to the application as
 * {@code quarkus.redis.hosts} (or the hosts of the named client), keeps it across live reloads while this decision
 * does not change, and stops it when the application stops.
 */
@BuildSteps(onlyIf = { IsDevServicesSupportedByLaunchMode.class, DevServicesConfig.Enabled.class })
public class RedisServerDevServicesProcessor {

    private static final Logger LOG = Logger.getLogger(RedisServerDevServicesProcessor.class);
    private static final String FEATURE = "delayed-jobs";
    private static final String EXECUTABLE = "redis-server";

    @BuildStep
    void startRedisServer(DelayedJobsBuildTimeConfig config, RedisBuildTimeConfig redisConfig,
            DockerStatusBuildItem containerRuntime, BuildProducer<DevServicesResultBuildItem> devServices) {
        if (!config.devservices().enabled()) {
            LOG.debug("Not starting redis-server: quarkus.delayed-jobs.devservices.enabled is false");
            return;
        }
        String clientName = config.redisClientName().orElse(RedisConfig.DEFAULT_CLIENT_NAME);
        String hostsKey = RedisConfig.getPropertyName(clientName, RedisConfig.HOSTS);
        if (ConfigUtils.isPropertyNonEmpty(hostsKey)
                || ConfigUtils.isPropertyNonEmpty(RedisConfig.getPropertyName(clientName, RedisConfig.HOSTS_PROVIDER_NAME))) {
            LOG.debugf("Not starting redis-server: %s is configured", hostsKey);
            return;
        }
        // The container runtime is probed only once a server is needed: the probe can take seconds.
        if (redisDevServiceEnabled(redisConfig, clientName) && containerRuntime.isContainerRuntimeAvailable()) {
            LOG.debug("Not starting redis-server: the Redis Dev Service of quarkus-redis-client starts a container");
            return;
        }
        String clientType = ConfigProvider.getConfig()
                .getOptionalValue(RedisConfig.getPropertyName(clientName, "client-type"), String.class)
                .orElse("standalone");
        // One server, or a cluster of one node, is what it starts: a Sentinel client would find no Sentinel there, and
        // a replication client would wait for a replica for ever. A cluster client refuses a server without cluster
        // support: it gets a cluster of one node.
        boolean cluster = "cluster".equalsIgnoreCase(clientType);
        if (!cluster && !"standalone".equalsIgnoreCase(clientType)) {
            LOG.warnf("Dev Services for Delayed Jobs start a single redis-server or a cluster of one node, not a %s"
                    + " setup (%s=%s), so they start nothing: set %s for dev mode and tests, or use client-type"
                    + " standalone or cluster there", clientType, RedisConfig.getPropertyName(clientName, "client-type"),
                    clientType, hostsKey);
            return;
        }
        Optional<Path> executable = findOnPath(EXECUTABLE);
        if (executable.isEmpty()) {
            LOG.warnf("No %s on the PATH, so Dev Services for Delayed Jobs cannot start a Redis server: install one"
                    + " (apt-get install redis-server, brew install redis), start a container runtime, or set %s",
                    EXECUTABLE, hostsKey);
            return;
        }
        Path server = executable.get();
        devServices.produce(DevServicesResultBuildItem.<LocalRedisServer> owned()
                .feature(FEATURE)
                .serviceName(clientName)
                // Identity of the running server: a live reload keeps it as long as this stays the same.
                .serviceConfig(server + (cluster ? " (cluster)" : ""))
                .description("redis-server from the PATH (" + server + ")" + (cluster ? ", a cluster of one node," : "")
                        + " for the Redis client of Delayed Jobs")
                .startable(() -> new LocalRedisServer(server, cluster))
                .configProvider(Map.of(hostsKey, LocalRedisServer::url))
                .postStartHook(started -> LOG.infof(
                        "Dev Services for Delayed Jobs started %s on port %d (no container runtime needed); %s=%s",
                        server, started.port(), hostsKey, started.url()))
                .build());
    }

    private static boolean redisDevServiceEnabled(RedisBuildTimeConfig redisConfig, String clientName) {
        RedisClientBuildTimeConfig client = redisConfig.clients().get(clientName);
        return client == null || client.devservices().enabled();
    }

    static Optional<Path> findOnPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isBlank()) {
                continue;
            }
            Path candidate = Path.of(dir).resolve(name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
