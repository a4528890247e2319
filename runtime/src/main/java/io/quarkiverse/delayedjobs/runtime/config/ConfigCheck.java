package io.quarkiverse.delayedjobs.runtime.config;

import java.util.Set;

import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * Checks the run-time settings at startup, before any bean of the extension exists and before anything is written to
 * Redis. A value out of its range stops the application with a {@link ConfigurationException} naming the key, which
 * Quarkus prints as its message alone (and dev mode offers to edit).
 */
public final class ConfigCheck {

    private static final String PREFIX = "quarkus.delayed-jobs.";

    private ConfigCheck() {
    }

    public static void check(DelayedJobsRuntimeConfig config) {
        if (config.keyPrefix().isBlank() || config.keyPrefix().contains("{") || config.keyPrefix().contains("}")) {
            throw refused(PREFIX + "key-prefix", "must be non-blank and contain no braces, was '" + config.keyPrefix() + "'");
        }
        if (config.redisTimeout().toMillis() < 1) {
            throw refused(PREFIX + "redis-timeout", "must be at least 1ms, was " + config.redisTimeout());
        }
        // A dead letter is pruned as it is written when the retention is not positive: the failed job would be gone.
        if (config.deadLetter().maxSize() < 1) {
            throw refused(PREFIX + "dead-letter.max-size", "must be at least 1, was " + config.deadLetter().maxSize());
        }
        if (config.deadLetter().retention().toMillis() < 1) {
            throw refused(PREFIX + "dead-letter.retention", "must be at least 1ms, was " + config.deadLetter().retention());
        }
        if (config.pollInterval().toMillis() < 1) {
            throw refused(PREFIX + "poll-interval", "must be at least 1ms, was " + config.pollInterval());
        }
        if (config.shutdownTimeout().isNegative()) {
            throw refused(PREFIX + "shutdown-timeout", "must not be negative, was " + config.shutdownTimeout());
        }
        if (config.maxPayloadSize().asLongValue() < 1) {
            throw refused(PREFIX + "max-payload-size", "must be at least 1 byte, was " + config.maxPayloadSize().asLongValue());
        }
        // Those of the workers and events too, in a producer-only instance as well: one configuration serves both.
        if (config.catchUpLimit() < 1) {
            throw refused(PREFIX + "catch-up-limit", "must be at least 1, was " + config.catchUpLimit());
        }
        if (config.observerThreads() < 1) {
            throw refused(PREFIX + "observer-threads", "must be at least 1, was " + config.observerThreads());
        }
        QueueSettings.checkConfigured(config);
    }

    /** The refusal of the setting {@code key} (its whole name), which breaks {@code rule}. */
    static ConfigurationException refused(String key, String rule) {
        return new ConfigurationException(key + " " + rule, Set.of(key));
    }
}
