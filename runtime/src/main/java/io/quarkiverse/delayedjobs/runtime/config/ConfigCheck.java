package io.quarkiverse.delayedjobs.runtime.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

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
        // Each claim of a missed occurrence looks that many occurrences back, on the worker's event loop: 10,000
        // took 160-285 ms a claim in a trial, 100 (the default) 14-26 ms.
        if (config.catchUpLimit() < 1 || config.catchUpLimit() > 1000) {
            throw refused(PREFIX + "catch-up-limit", "must be 1 to 1000, was " + config.catchUpLimit());
        }
        if (config.observerThreads() < 1) {
            throw refused(PREFIX + "observer-threads", "must be at least 1, was " + config.observerThreads());
        }
        QueueSettings.checkConfigured(config);
    }

    /**
     * Says which overrides of the workers' settings name a queue that no {@code @Delayed} method of this application
     * handles, most often a misspelt name: such a key has no effect here, and the queue meant keeps its defaults. Not an
     * error: one configuration may serve applications with other handlers. Nothing in an instance that runs no workers,
     * nor for the settings that producers read too ({@code shards}, {@code schedule-linger}).
     *
     * @param handled the queues of this application's handlers
     * @return a message per such queue, for the log
     */
    public static List<String> unhandledQueueSettings(DelayedJobsRuntimeConfig config, Set<String> handled) {
        if (!config.enabled()) {
            return List.of();
        }
        List<String> messages = new ArrayList<>();
        new TreeMap<>(config.queues()).forEach((queue, overrides) -> {
            if (handled.contains(queue)) {
                return;
            }
            List<String> keys = new ArrayList<>();
            addIf(keys, overrides.lease().isPresent(), "lease");
            addIf(keys, overrides.batchSize().isPresent(), "batch-size");
            addIf(keys, overrides.concurrency().isPresent(), "concurrency");
            addIf(keys, overrides.claimAhead().isPresent(), "claim-ahead");
            addIf(keys, overrides.maxAttempts().isPresent(), "max-attempts");
            addIf(keys, overrides.backoff().initial().isPresent(), "backoff.initial");
            addIf(keys, overrides.backoff().max().isPresent(), "backoff.max");
            if (!keys.isEmpty()) {
                messages.add(PREFIX + "queues.\"" + queue + "\" sets " + String.join(", ", keys)
                        + ", but no @Delayed method of this application handles queue '" + queue
                        + "', and only a queue's workers read these settings (queues handled here: "
                        + new TreeSet<>(handled) + ")");
            }
        });
        return messages;
    }

    private static void addIf(List<String> keys, boolean set, String key) {
        if (set) {
            keys.add(key);
        }
    }

    /**
     * Refuses the overrides of a queue spelled both with its name in quotes and without: SmallRye Config then reads the
     * keys of one spelling only, and drops the others without a word. SmallRye lists an environment variable such as
     * {@code QUARKUS_DELAYED_JOBS_QUEUES__REPORTS__LEASE} under its quoted spelling, {@code queues."reports".lease}.
     * {@code names}: the configuration's property names; {@code profiles}: the active profiles, whose names count.
     */
    public static void checkQueueSpellings(Iterable<String> names, List<String> profiles) {
        Map<String, String> quoted = new HashMap<>();
        Map<String, String> unquoted = new HashMap<>();
        for (String name : names) {
            String key = name;
            if (key.startsWith("%")) {
                int dot = key.indexOf('.');
                if (dot < 0 || !profiles.contains(key.substring(1, dot))) {
                    continue;
                }
                key = key.substring(dot + 1);
            }
            if (key.startsWith(PREFIX + "queues.\"")) {
                String rest = key.substring(PREFIX.length() + "queues.\"".length());
                int end = rest.indexOf('"');
                if (end > 0) {
                    quoted.putIfAbsent(rest.substring(0, end), name);
                }
            } else if (key.startsWith(PREFIX + "queues.")) {
                String rest = key.substring(PREFIX.length() + "queues.".length());
                int end = rest.indexOf('.');
                if (end > 0) {
                    unquoted.putIfAbsent(rest.substring(0, end), name);
                }
            }
        }
        for (Map.Entry<String, String> entry : unquoted.entrySet()) {
            String queue = entry.getKey();
            String other = quoted.get(queue);
            if (other != null) {
                throw new ConfigurationException("The settings of queue '" + queue + "' are spelled with its name in"
                        + " quotes (" + other + ") and without (" + entry.getValue() + "): SmallRye Config would read"
                        + " one spelling only and ignore the other settings. Quote the name in every key"
                        + " (quarkus.delayed-jobs.queues.\"" + queue + "\".<setting>), as environment variables"
                        + " QUARKUS_DELAYED_JOBS_QUEUES__<QUEUE>__<SETTING> spell it too",
                        Set.of(entry.getValue(), other));
            }
        }
    }

    /** The refusal of the setting {@code key} (its whole name), which breaks {@code rule}. */
    static ConfigurationException refused(String key, String rule) {
        return new ConfigurationException(key + " " + rule, Set.of(key));
    }
}
