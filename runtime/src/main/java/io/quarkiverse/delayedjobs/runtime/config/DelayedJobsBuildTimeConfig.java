package io.quarkiverse.delayedjobs.runtime.config;

import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigDocSection;
import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Build-time configuration of the delayed jobs extension.
 */
@ConfigMapping(prefix = "quarkus.delayed-jobs")
@ConfigRoot(phase = ConfigPhase.BUILD_AND_RUN_TIME_FIXED)
public interface DelayedJobsBuildTimeConfig {

    /**
     * The name of the Quarkus Redis client that stores the jobs, as in {@code quarkus.redis."name".hosts}.
     * When absent, the default Redis client is used.
     */
    Optional<String> redisClientName();

    /**
     * Micrometer metrics.
     */
    @ConfigDocSection
    MetricsConfig metrics();

    /**
     * Micrometer metrics of the jobs.
     */
    interface MetricsConfig {

        /**
         * Whether the jobs' meters ({@code delayed.jobs.*}, tagged with their queue) are registered when the
         * application has the Micrometer extension ({@code quarkus-micrometer} or one of its registries).
         */
        @WithDefault("true")
        boolean enabled();
    }

    /**
     * OpenTelemetry tracing.
     */
    @ConfigDocSection
    TracingConfig tracing();

    /**
     * OpenTelemetry tracing of the handlers.
     */
    interface TracingConfig {

        /**
         * Whether each run of a handler is traced, in a span {@code process <queue>} of its own, and each
         * {@code schedule} call, in a span {@code send <queue>}, when the application has the OpenTelemetry extension
         * ({@code quarkus-opentelemetry}) with tracing enabled.
         */
        @WithDefault("true")
        boolean enabled();
    }

    /**
     * Dev Services without a container runtime.
     */
    @ConfigDocSection
    DevServicesConfig devservices();

    /**
     * Health checks.
     */
    @ConfigDocSection
    HealthConfig health();

    /**
     * Dev Services that start a local {@code redis-server} when no container runtime is available.
     */
    interface DevServicesConfig {

        /**
         * Whether, in dev and test mode, a {@code redis-server} found on the {@code PATH} is started for the Redis
         * client of the extension when that client has no {@code hosts} (nor {@code hosts-provider-name}) configured
         * and the Redis Dev Service of {@code quarkus-redis-client} cannot run because no container runtime is
         * available. The server listens on 127.0.0.1 on a free port, keeps no data on disk, and is stopped when the
         * application stops. With a container runtime, the Redis Dev Service of {@code quarkus-redis-client} is used
         * instead, unless it is disabled with {@code quarkus.redis.devservices.enabled=false}.
         * {@code quarkus.devservices.enabled=false} disables both.
         */
        @WithDefault("true")
        boolean enabled();
    }

    /**
     * The SmallRye Health checks of the extension.
     */
    interface HealthConfig {

        /**
         * Whether the extension publishes its health checks when the application has the
         * {@code quarkus-smallrye-health} extension: a readiness check, "Delayed jobs", that runs a read-only script of
         * the job protocol on the extension's connection to Redis, and a liveness check, "Delayed jobs workers", that
         * makes sure the event loop of each queue worker of this instance still runs its tasks. The readiness check
         * sends one call to Redis each time it is called, and nothing otherwise. With
         * {@code quarkus.smallrye-health.extensions.enabled=false} no extension publishes its checks, whatever this
         * says.
         */
        @WithDefault("true")
        boolean enabled();
    }
}
