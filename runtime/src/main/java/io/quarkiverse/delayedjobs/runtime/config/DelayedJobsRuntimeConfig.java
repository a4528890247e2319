package io.quarkiverse.delayedjobs.runtime.config;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import io.quarkus.runtime.annotations.ConfigDocMapKey;
import io.quarkus.runtime.annotations.ConfigDocSection;
import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithParentName;

/**
 * Run-time configuration of the delayed jobs extension.
 */
@ConfigMapping(prefix = "quarkus.delayed-jobs")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface DelayedJobsRuntimeConfig {

    /**
     * Whether this instance runs workers for its {@code @Delayed} handlers. With {@code false} the instance is a
     * producer only: it can schedule, cancel and inspect jobs, but runs none.
     */
    @WithDefault("true")
    boolean enabled();

    /**
     * The prefix of every Redis key and channel the extension uses. Applications sharing a Redis keep their jobs
     * apart by using different prefixes. Must not contain braces.
     */
    @WithDefault("dj")
    String keyPrefix();

    /**
     * Payloads larger than this, as JSON, are refused at schedule time. At least 1 byte.
     */
    @WithDefault("1M")
    MemorySize maxPayloadSize();

    /**
     * The longest an idle instance that runs workers goes without proof that its wake-up notifications still arrive:
     * every poll interval it publishes a heartbeat on a channel of its own and, when that does not come back within 5 s,
     * reconnects and
     * looks at every shard. Idle workers also look at every shard every 10 poll intervals. This is a safety net, not
     * the firing precision: workers wake at the next known due time. At least 1 ms.
     */
    @WithDefault("30s")
    Duration pollInterval();

    /**
     * How long a graceful stop waits for running handlers to finish. Jobs claimed but not started are handed back
     * at once so that another instance runs them. Must not be negative.
     */
    @WithDefault("30s")
    Duration shutdownTimeout();

    /**
     * The longest a call to Redis may go unanswered, time spent waiting for a connection included. Past it the call
     * fails (the operation raises a {@code DelayedJobsException}, a worker tries again a second later) and its
     * connection is replaced: a Redis that stops answering without closing the connection, behind a network cut say,
     * would otherwise hold producers and workers for ever. Opening a connection takes several round trips: it may take
     * five times this long before it is given up. A call that timed out once sent may still be carried out when Redis
     * goes on: repeat it by the job's id. One that timed out while its connection was opening is never sent. The
     * {@code schedule} calls waiting behind a call of their shard that timed out fail with it, unsent: a
     * {@code schedule} fails within twice this time (and its {@code schedule-linger}), however many wait. At least 1 ms.
     */
    @WithDefault("10s")
    Duration redisTimeout();

    /**
     * The threads that run the synchronous observers ({@code @Observes}) of {@code JobSucceeded}, {@code JobFailed} and
     * {@code JobDeadLettered}, named {@code delayed-jobs-events-…}; none when the application has no such observer.
     * The events of different jobs reach the observers side by side on these threads, those of one job in order.
     * Observers that block hold up the events after them, never the jobs nor the application's worker pool. At
     * least 1.
     */
    @WithDefault("16")
    int observerThreads();

    /**
     * The most missed occurrences a recurring job with the {@code CATCH_UP} misfire policy runs after a downtime: the
     * most recent ones. 1 to 1000: each claim of a missed occurrence looks that many occurrences back.
     */
    @WithDefault("100")
    int catchUpLimit();

    /**
     * Bounds of the dead letters of each queue.
     */
    @ConfigDocSection
    DeadLetterConfig deadLetter();

    /**
     * Defaults that apply to every queue unless overridden under {@code queues."name"}.
     */
    @WithParentName
    QueueDefaults defaults();

    /**
     * Per-queue overrides of the queue settings.
     */
    @ConfigDocMapKey("queue-name")
    @ConfigDocSection
    Map<String, QueueOverrides> queues();

    /**
     * Bounds of the dead letters of a queue.
     */
    interface DeadLetterConfig {

        /**
         * About the most dead letters kept per queue: each shard keeps {@code max-size / shards} (rounded down) and at
         * least one, so a size below the shard count still keeps one per shard; when a job dies, the oldest dead letters of its
         * shard beyond that share are removed, a hundred at most (once
         * lowered, the excess goes over the next deaths). At least 1.
         */
        @WithDefault("10000")
        int maxSize();

        /**
         * How long a dead letter is kept. Older ones are removed a few at a time by the workers of the queue. At least
         * 1ms.
         */
        @WithDefault("7d")
        Duration retention();
    }

    /**
     * The settings of a queue.
     */
    interface QueueDefaults {

        /**
         * Shards per queue: the number of sorted sets a queue is split into, each in its own Redis hash slot. It is part
         * of the queue's identity: the first instance records it in Redis; an instance configured differently refuses
         * to start when it handles the queue, and otherwise fails every operation on that queue. From 1 to 1024.
         */
        @WithDefault("8")
        int shards();

        /**
         * How long a claimed job stays invisible to other workers. It is renewed while the handler runs; when a worker
         * dies, its jobs are delivered again once the lease runs out. Between 1s and 1d.
         */
        @WithDefault("30s")
        Duration lease();

        /**
         * The most jobs due now that one claim of a shard takes, and the most it takes ahead of their due time, from 1
         * to 1000. On a Redis Cluster each claim is a script call; with one Redis server, the claims of the shards a
         * worker claims from in one round go in one call. An instance whose handlers finish quickly claims up to twice
         * this many ahead of its free handlers.
         */
        @WithDefault("32")
        int batchSize();

        /**
         * The most handlers of one queue running at once in this instance. Between 1 and 100000.
         */
        @WithDefault("16")
        int concurrency();

        /**
         * How long before their due time jobs may be claimed. A worker claims the jobs due within this time in one
         * call and starts each at its due time by its own timer, instead of one call per job at its due time: fewer
         * calls to Redis when jobs are due one by one, and no round trip between the due time and the start. Such a
         * job counts as running from its claim, and a cancel, a reschedule or a replacing schedule before it is due
         * still keeps it from starting (its worker is told on the wake channel). {@code 0} claims jobs only once due.
         * At most 1s.
         */
        @WithDefault("100ms")
        Duration claimAhead();

        /**
         * How long a scheduled job may wait in this instance for others to share its call to Redis. The jobs scheduled
         * to the queue within this time go together (one script call; one per shard on a Redis Cluster), which costs
         * Redis a fraction of one call per job when a producer schedules a steady stream; each {@code schedule}
         * completes up to this much later. A job due within 1s of its {@code schedule} call never waits, and takes the
         * jobs waiting for its shard with it. A delay counts from the {@code schedule} call all the same. Cancel,
         * reschedule, recurring and requeue never wait. {@code 0} (the default) sends every job at once. At most 100ms.
         */
        @WithDefault("0")
        Duration scheduleLinger();

        /**
         * Deliveries of a job before it moves to the dead letters. A lease that ran out counts as a delivery. At
         * least 1.
         */
        @WithDefault("10")
        int maxAttempts();

        /**
         * Retry delays.
         */
        BackoffDefaults backoff();
    }

    /**
     * Exponential retry delay, with jitter.
     */
    interface BackoffDefaults {

        /**
         * The delay before the first retry; each further retry doubles it. Not negative.
         */
        @WithDefault("1s")
        Duration initial();

        /**
         * The longest delay between two deliveries. At least {@code backoff.initial}.
         */
        @WithDefault("1h")
        Duration max();
    }

    /**
     * Overrides of the settings of one queue; absent values fall back to the defaults.
     */
    interface QueueOverrides {

        /**
         * Shards of this queue, instead of {@code quarkus.delayed-jobs.shards}. Fixed for the life of the queue.
         */
        OptionalInt shards();

        /**
         * Lease of this queue, instead of {@code quarkus.delayed-jobs.lease}.
         */
        Optional<Duration> lease();

        /**
         * Batch size of this queue, instead of {@code quarkus.delayed-jobs.batch-size}.
         */
        OptionalInt batchSize();

        /**
         * Concurrency of this queue in this instance, instead of {@code quarkus.delayed-jobs.concurrency}.
         */
        OptionalInt concurrency();

        /**
         * Claim-ahead time of this queue, instead of {@code quarkus.delayed-jobs.claim-ahead}.
         */
        Optional<Duration> claimAhead();

        /**
         * Schedule linger of this queue, instead of {@code quarkus.delayed-jobs.schedule-linger}.
         */
        Optional<Duration> scheduleLinger();

        /**
         * Max attempts of this queue, instead of {@code quarkus.delayed-jobs.max-attempts}.
         */
        OptionalInt maxAttempts();

        /**
         * Retry delays of this queue.
         */
        BackoffOverrides backoff();
    }

    /**
     * Retry delay overrides of one queue.
     */
    interface BackoffOverrides {

        /**
         * The delay before the first retry of a job of this queue, instead of
         * {@code quarkus.delayed-jobs.backoff.initial}.
         */
        Optional<Duration> initial();

        /**
         * The longest delay between two deliveries of a job of this queue, instead of
         * {@code quarkus.delayed-jobs.backoff.max}.
         */
        Optional<Duration> max();
    }
}
