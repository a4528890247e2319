package io.quarkiverse.delayedjobs.runtime.config;

import java.util.Optional;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;

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
}
