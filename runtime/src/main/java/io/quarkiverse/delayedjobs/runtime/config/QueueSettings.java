package io.quarkiverse.delayedjobs.runtime.config;

import java.time.Duration;
import java.util.Set;

import io.quarkiverse.delayedjobs.runtime.JobArguments;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * The effective settings of one queue: its overrides laid over the defaults, checked once.
 */
public record QueueSettings(int shards, Duration lease, int batchSize, int concurrency, Duration claimAhead,
        Duration scheduleLinger, int maxAttempts, Duration backoffInitial, Duration backoffMax) {

    /**
     * A lease beyond a day would only delay the recovery of a crashed instance's jobs by as much; far beyond, its end in
     * nanoseconds would overflow.
     */
    private static final Duration MAX_LEASE = Duration.ofDays(1);
    /** Handlers in flight per queue and instance; far beyond, the claim planning's sums would overflow. */
    private static final int MAX_CONCURRENCY = 100_000;
    /** Jobs held longer than this would wait in memory for no gain: a second already makes one claim cover many. */
    private static final Duration MAX_CLAIM_AHEAD = Duration.ofSeconds(1);
    /** Each schedule call completes up to the linger later: beyond this it would be felt by callers that wait. */
    private static final Duration MAX_SCHEDULE_LINGER = Duration.ofMillis(100);

    public static QueueSettings of(DelayedJobsRuntimeConfig config, String queue) {
        DelayedJobsRuntimeConfig.QueueOverrides o = config.queues().get(queue);
        if (o == null) {
            return defaults(config);
        }
        DelayedJobsRuntimeConfig.QueueDefaults d = config.defaults();
        QueueSettings s = new QueueSettings(o.shards().orElse(d.shards()), o.lease().orElse(d.lease()),
                o.batchSize().orElse(d.batchSize()), o.concurrency().orElse(d.concurrency()),
                o.claimAhead().orElse(d.claimAhead()),
                o.scheduleLinger().orElse(d.scheduleLinger()), o.maxAttempts().orElse(d.maxAttempts()),
                o.backoff().initial().orElse(d.backoff().initial()), o.backoff().max().orElse(d.backoff().max()));
        s.check("quarkus.delayed-jobs.queues.\"" + queue + "\".");
        return s;
    }

    /**
     * Checks the defaults and the overrides of every queue named in the configuration, whether this instance handles
     * it or not: a setting out of its range stops the application at startup rather than failing the first call on
     * that queue. Part of {@link ConfigCheck}.
     */
    static void checkConfigured(DelayedJobsRuntimeConfig config) {
        defaults(config);
        for (String queue : config.queues().keySet()) {
            try {
                JobArguments.queue(queue);
            } catch (IllegalArgumentException e) {
                String key = "quarkus.delayed-jobs.queues.\"" + queue + "\"";
                throw new ConfigurationException(key + " names no queue: " + e.getMessage(), Set.of(key));
            }
            of(config, queue);
        }
    }

    private static QueueSettings defaults(DelayedJobsRuntimeConfig config) {
        DelayedJobsRuntimeConfig.QueueDefaults d = config.defaults();
        QueueSettings s = new QueueSettings(d.shards(), d.lease(), d.batchSize(), d.concurrency(), d.claimAhead(),
                d.scheduleLinger(), d.maxAttempts(), d.backoff().initial(), d.backoff().max());
        s.check("quarkus.delayed-jobs.");
        return s;
    }

    /** {@code where}: the prefix of the keys checked, the queue's overrides or the defaults. */
    private void check(String where) {
        if (shards < 1 || shards > 1024) {
            throw ConfigCheck.refused(where + "shards", "must be between 1 and 1024, was " + shards);
        }
        if (lease.toMillis() < 1000 || lease.compareTo(MAX_LEASE) > 0) {
            throw ConfigCheck.refused(where + "lease", "must be between 1s and 1d, was " + lease);
        }
        atLeastOne(where + "batch-size", batchSize);
        atLeastOne(where + "concurrency", concurrency);
        if (concurrency > MAX_CONCURRENCY) {
            throw ConfigCheck.refused(where + "concurrency", "must be at most " + MAX_CONCURRENCY + ", was " + concurrency);
        }
        atLeastOne(where + "max-attempts", maxAttempts);
        if (batchSize > JobStore.MOST_PER_SHARD) {
            throw ConfigCheck.refused(where + "batch-size",
                    "must be at most " + JobStore.MOST_PER_SHARD + ", was " + batchSize);
        }
        if (claimAhead.isNegative() || claimAhead.compareTo(MAX_CLAIM_AHEAD) > 0) {
            throw ConfigCheck.refused(where + "claim-ahead",
                    "must be between 0 and " + MAX_CLAIM_AHEAD + ", was " + claimAhead);
        }
        if (scheduleLinger.isNegative() || scheduleLinger.compareTo(MAX_SCHEDULE_LINGER) > 0) {
            throw ConfigCheck.refused(where + "schedule-linger",
                    "must be between 0 and " + MAX_SCHEDULE_LINGER + ", was " + scheduleLinger);
        }
        if (backoffInitial.isNegative() || backoffMax.compareTo(backoffInitial) < 0) {
            throw new ConfigurationException(where + "backoff.initial must not be negative and backoff.max must be"
                    + " at least backoff.initial, were " + backoffInitial + " and " + backoffMax,
                    Set.of(where + "backoff.initial", where + "backoff.max"));
        }
    }

    private static void atLeastOne(String key, int value) {
        if (value < 1) {
            throw ConfigCheck.refused(key, "must be at least 1, was " + value);
        }
    }
}
