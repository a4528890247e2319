package io.quarkiverse.delayedjobs.runtime.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.Causes;
import io.quarkiverse.delayedjobs.runtime.JobArguments;
import io.quarkiverse.delayedjobs.runtime.config.DelayedJobsRuntimeConfig;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.cron.CronSchedule;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * Every Redis operation of the job protocol: one script call per operation, on the shard of the job.
 * Scripts run by SHA; a node that answers NOSCRIPT (a restarted node, another cluster node) gets the text once.
 * The calls go on a connection of the store's own ({@link SharedConnection}), or on a cluster on one per master
 * ({@link ClusterConnections}); the wake subscription opens on a client of the store's own too ({@link #newClient()}).
 */
public class JobStore implements AutoCloseable {

    /**
     * The most jobs, acknowledgements or leases one script call carries for a shard ({@code MOST_PER_SHARD} in
     * {@code common.lua}, which refuses more before it writes anything).
     */
    public static final int MOST_PER_SHARD = 1000;
    /** On a cluster, how long after a recording of a shard count that failed the next one may start. */
    private static final long RECORD_AGAIN_PACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** In {@code recordAgain}: a recording is under way. */
    private static final Long RECORDING = Long.MAX_VALUE;
    private static final Logger LOG = Logger.getLogger(JobStore.class);
    /** How long after a failed script call of a queue each of its calls carries one shard (see shardsAloneUntil). */
    private static final long SHARDS_ALONE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final StoreConnection connection;
    private final DelayedJobsRuntimeConfig config;
    private final ConcurrentMap<String, Future<QueueKeys>> queues = new ConcurrentHashMap<>();
    /**
     * Queues whose shard count agreed, to record again at their next use from the given {@link System#nanoTime()} on
     * (see {@link #recordAgain(String)}); {@link #RECORDING} while a recording is under way.
     */
    private final ConcurrentMap<String, Long> recordAgain = new ConcurrentHashMap<>();
    /**
     * The queues whose shard count disagreed with the one recorded in Redis at their last check, with why: the
     * readiness check tells of them, since every call of this instance on them fails.
     */
    private final ConcurrentMap<String, String> disagreeing = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, ScheduleBatches> scheduleBatches = new ConcurrentHashMap<>();
    /** Set by a stop: no scheduled job waits for others any more, in any queue. */
    private volatile boolean lingerStopped;
    private final Vertx vertx;
    /**
     * The clock reading of the claim answered last; used only when one Redis server holds every shard (not a
     * cluster). See {@link #redisClockAtLeast(ClaimBatch)}.
     */
    private final AtomicReference<ClockReading> lastClaimClock = new AtomicReference<>();
    /** Whether the shards live on several servers, whose clocks differ and which no one script call reaches. */
    private final boolean cluster;
    /**
     * Per queue, until when ({@link System#nanoTime()}) each script call carries one shard although one server holds
     * them all: a call failed (on a shard's key of the wrong type, say), and one bad shard must not fail the claims
     * and schedules of the others. Every failed call pushes the time back.
     */
    private final ConcurrentMap<String, Long> shardsAloneUntil = new ConcurrentHashMap<>();
    private volatile Consumer<String> connectionLostListener = node -> {
    };
    private volatile Runnable masterSwitchedListener = () -> {
    };

    /**
     * {@code options}: copies of the options of the configured Quarkus client, for the store's own clients;
     * {@code config}: as {@code ConfigCheck} passed it at startup; {@code cluster}: the shards live on several servers,
     * whose clocks differ.
     */
    public JobStore(Supplier<RedisOptions> options, Vertx vertx, DelayedJobsRuntimeConfig config, boolean cluster) {
        this.vertx = vertx;
        long timeoutMs = config.redisTimeout().toMillis();
        this.connection = cluster ? new ClusterConnections(options, vertx, timeoutMs, this::connectionLost)
                : new SharedConnection(options, vertx, timeoutMs, () -> connectionLost(null),
                        () -> masterSwitchedListener.run());
        this.config = config;
        this.cluster = cluster;
    }

    /**
     * A client of the store's own: {@code node} is the endpoint of the cluster master it connects to, null when not on a
     * cluster.
     */
    public record OwnClient(Redis client, String node) {
    }

    /**
     * A new client of the store's own, made with the options of the configured Quarkus client (on a cluster, a client
     * of one master, the next in turn); its owner closes it. Closing it closes its connections for sure, where closing
     * a pooled connection of the Quarkus client only returns it to the pool.
     */
    public Future<OwnClient> newClient() {
        return connection.newClient();
    }

    /**
     * How long a connection may take to open before it is given up: opening takes several round trips (TLS,
     * {@code HELLO}, {@code AUTH}, {@code SELECT}).
     */
    public long connectTimeoutMs() {
        return SharedConnection.CONNECT_TIMEOUTS * config.redisTimeout().toMillis();
    }

    /** The event loop of the store's own connection, where the calls are written. */
    public Context connectionContext() {
        return connection.context();
    }

    /** Closes the store's own connection, when the application stops. */
    @Override
    public void close() {
        connection.close();
    }

    public DelayedJobsRuntimeConfig config() {
        return config;
    }

    /** The endpoint of the cluster master that holds {@code key} by the slot map known now; null when not on a cluster. */
    String nodeOf(String key) {
        return connection.nodeOf(key);
    }

    /** Whether the shards live on the masters of a Redis Cluster. */
    public boolean cluster() {
        return cluster;
    }

    /**
     * The queues whose shard count is recorded under the key prefix: every queue some producer or worker used, also
     * those no handler of this application runs (renamed or removed ones keep their jobs). Scans every key of Redis
     * (on each master of a cluster), so it is for the Dev UI, not for a production code path.
     */
    public Future<List<String>> storedQueues() {
        String before = config.keyPrefix() + ":{";
        String after = "}:shards";
        return connection.keys(globEscaped(before) + "*" + after).recover(e -> fail("list the stored queues", e))
                .map(keys -> keys.stream().filter(k -> k.startsWith(before) && k.endsWith(after))
                        .map(k -> k.substring(before.length(), k.length() - after.length()))
                        .filter(queue -> JobArguments.QUEUE_NAME.matcher(queue).matches()).distinct().sorted().toList());
    }

    /** {@code text} as a SCAN pattern that matches it alone. */
    private static String globEscaped(String text) {
        return text.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
    }

    /**
     * The keys of a queue, once its shard count is known to agree with the one recorded in Redis (the first user of
     * a queue records it).
     */
    public Future<QueueKeys> queue(String queue) {
        Long from = recordAgain.isEmpty() ? null : recordAgain.get(queue);
        if (from != null && takeRecording(queue, from)) {
            Future<Void> recording = recordAgain(queue);
            if (!cluster) {
                // With one server the call waits for the recording, as a queue's first use does: it costs no more,
                // Redis being up or down for both, and a call that went out on a new connection while the recording
                // failed on the old one would write to a queue without a count.
                return recording.compose(v -> queue(queue));
            }
        }
        Future<QueueKeys> keys = queues.computeIfAbsent(queue, this::checkShardCount);
        // A failed check (Redis down, say) is tried again on next use; a mismatch fails again on its own.
        keys.onFailure(e -> queues.remove(queue, keys));
        return keys;
    }

    /**
     * Records again the shard count of each queue whose count agreed before, at its next use: Redis may have lost them
     * (a restart without its data).
     */
    public void recordShardCountsAgain() {
        queues.keySet().forEach(queue -> recordAgain.putIfAbsent(queue, System.nanoTime()));
    }

    /**
     * Records again, now, the shard count of each queue in use. The workers claim with the keys they were given at
     * the start and never ask again: a count deleted by hand is restored this way, and one recorded anew with another
     * count (by a producer that found none) is found, logged, and fails the queue's calls until it is set right.
     */
    public void recordShardCountsNow() {
        for (String queue : queues.keySet()) {
            Long from = recordAgain.get(queue);
            if (from == null ? recordAgain.putIfAbsent(queue, RECORDING) == null : takeRecording(queue, from)) {
                recordAgain(queue);
            }
        }
    }

    /**
     * Whether the caller takes the recording of {@code queue}, asked for from {@code from} on: not when one is under
     * way, or when it is paced after a failure (on a cluster) and not due yet.
     */
    private boolean takeRecording(String queue, Long from) {
        return !from.equals(RECORDING) && System.nanoTime() - from >= 0 && recordAgain.replace(queue, from, RECORDING);
    }

    /** Forgets which queues' shard counts were checked, as an instance that never used them would (tests). */
    public void checkShardCountsAgain() {
        queues.clear();
        recordAgain.clear();
        disagreeing.clear();
    }

    /**
     * Records the shard count of a queue whose count agreed before; on a cluster without holding up its calls, since
     * the count's master may be the one that cannot be reached while the queue's other shards go on. A count found to
     * disagree fails the queue's calls from then on; without an answer, the next use of the queue tries again.
     */
    private Future<Void> recordAgain(String queue) {
        QueueKeys keys = keysOf(queue);
        return recordShardCount(keys).andThen(ar -> {
            if (ar.failed()) {
                // On a cluster, tried again a second later: a master that refuses connections would fail it at once,
                // for every call to the others. With one server, at the next use, which waits for it.
                recordAgain.put(queue, System.nanoTime() + (cluster ? RECORD_AGAIN_PACE_NANOS : 0));
                return;
            }
            recordAgain.remove(queue, RECORDING);
            try {
                agreeing(queue, keys, ar.result());
                // The count was set right again: the queue's calls go through again.
                queues.computeIfPresent(queue, (q, known) -> known.failed() ? Future.succeededFuture(keys) : known);
            } catch (DelayedJobsException mismatch) {
                Future<QueueKeys> before = queues.put(queue, Future.failedFuture(mismatch));
                if (before == null || !before.failed()) {
                    LOG.errorf("%s. Until the counts agree, this instance's calls on the queue fail, its workers go on"
                            + " claiming from the shards they started with, and jobs stored in others wait.",
                            mismatch.getMessage());
                }
            }
        }).mapEmpty();
    }

    /**
     * Sets what to run, besides recording the shard counts again, when the store's connection is lost; it is given the
     * endpoint of the cluster master whose connection it was, null when not on a cluster.
     */
    public void onConnectionLost(Consumer<String> listener) {
        this.connectionLostListener = listener;
    }

    /** Sets what to run when Sentinel announced a new master, once the store's calls go there. */
    public void onMasterSwitched(Runnable listener) {
        this.masterSwitchedListener = listener;
    }

    /**
     * A Redis that comes back may have lost the shard counts: once the connection is lost, the next use of each queue
     * records its count again (a producer-only instance has no wake subscription to tell it so). On a cluster, only
     * the queues whose count that master holds.
     */
    private void connectionLost(String node) {
        for (String queue : queues.keySet()) {
            if (node == null || node.equals(connection.nodeOf(keysOf(queue).shardCountKey()))) {
                recordAgain.putIfAbsent(queue, System.nanoTime());
            }
        }
        connectionLostListener.accept(node);
    }

    private QueueKeys keysOf(String queue) {
        return new QueueKeys(config.keyPrefix(), queue, QueueSettings.of(config, queue).shards());
    }

    private Future<QueueKeys> checkShardCount(String queue) {
        QueueKeys keys = keysOf(queue);
        return recordShardCount(keys).map(recorded -> agreeing(queue, keys, recorded));
    }

    /** Why the calls on each queue whose shard count disagreed at its last check fail, in the order of the queues. */
    public List<String> shardCountDisagreements() {
        return List.copyOf(new TreeMap<>(disagreeing).values());
    }

    /** Records the queue's shard count unless one is recorded already; answers the one recorded before, or null. */
    private Future<Response> recordShardCount(QueueKeys keys) {
        Request set = Request.cmd(Command.SET).arg(keys.shardCountKey()).arg(keys.shards()).arg("NX").arg("GET");
        return connection.send(keys.shardCountKey(), set)
                // Named: it fails the call it comes before (a schedule, a claim), whose own step it is not.
                .recover(e -> fail("record the shard count of queue '" + keys.queue() + "' (the first call to a queue"
                        + " does, and again after Redis came back)", e));
    }

    /**
     * Runs an operation on the jobs a queue has (find, cancel, stats, …) with its keys, once its shard count is known
     * not to disagree with the one recorded in Redis. Such an operation records no count, so that looking at a queue
     * nobody uses (a mistyped name, a queue that a later deployment configures) does not fix it: with none recorded it
     * runs with the configured count, and its scripts write nothing where they find no job. It still looks, since jobs
     * may have been written after Redis lost the count (by an instance that had checked it before).
     */
    private <T> Future<T> withQueueKeys(String queue, Function<QueueKeys, Future<T>> operation) {
        Future<QueueKeys> checked = queues.get(queue);
        if (checked != null) {
            return checked.compose(operation);
        }
        QueueKeys keys = keysOf(queue);
        return connection.send(keys.shardCountKey(), Request.cmd(Command.GET).arg(keys.shardCountKey()))
                .recover(e -> fail("read the shard count of queue '" + queue + "'", e)).compose(recorded -> {
                    if (recorded != null) {
                        queues.putIfAbsent(queue, Future.succeededFuture(agreeing(queue, keys, recorded)));
                    }
                    return operation.apply(keys);
                });
    }

    /**
     * The keys, when the shard count recorded in Redis (null when none was) is the one of this instance; the queue is
     * among the {@link #shardCountDisagreements()} from a check that finds it is not until one that finds it is.
     */
    private QueueKeys agreeing(String queue, QueueKeys keys, Response recorded) {
        try {
            QueueKeys agreed = checked(queue, keys, recorded);
            disagreeing.remove(queue);
            return agreed;
        } catch (ShardCountMismatch mismatch) {
            disagreeing.put(queue, mismatch.getMessage());
            throw mismatch;
        }
    }

    private static QueueKeys checked(String queue, QueueKeys keys, Response recorded) {
        if (recorded == null) {
            return keys;
        }
        // Written by hand or by a producer in another language, it may be anything.
        String text = recorded.toString();
        int shards = shardCount(text);
        String setting = "quarkus.delayed-jobs.queues.\"" + queue + "\".shards";
        if (shards < 1 || shards > 1024) {
            throw new ShardCountMismatch("Queue '" + queue + "' has '" + text + "' recorded in Redis as its shard"
                    + " count (key " + keys.shardCountKey() + "), which is no whole number from 1 to 1024: set that"
                    + " key to the count the queue's jobs were stored with (" + setting + ", " + keys.shards()
                    + " here)", setting);
        }
        if (shards != keys.shards()) {
            throw new ShardCountMismatch("Queue '" + queue + "' has " + shards + " shards recorded in Redis (key "
                    + keys.shardCountKey() + ") but this instance is configured with " + keys.shards() + ": set "
                    + setting + "=" + shards + " (the shard count cannot change while the queue has jobs)", setting);
        }
        return keys;
    }

    /** A recorded shard count, or -1 when it is no whole number of 1 to 4 digits (written by hand, say). */
    private static int shardCount(String recorded) {
        return recorded.matches("[1-9][0-9]{0,3}") ? Integer.parseInt(recorded) : -1;
    }

    /** The shard count recorded in Redis for a queue is not this instance's {@code setting}. */
    public static final class ShardCountMismatch extends DelayedJobsException {

        private static final long serialVersionUID = 1L;

        private final String setting;

        ShardCountMismatch(String message, String setting) {
            super(message);
            this.setting = setting;
        }

        public String setting() {
            return setting;
        }
    }

    public Future<Response> run(Script script, List<String> keys, List<Object> args) {
        return connection.send(keys.get(0), request(Command.EVALSHA, script.sha(), keys, args)).recover(e -> {
            if (e.getMessage() != null && e.getMessage().startsWith("NOSCRIPT")) {
                return connection.send(keys.get(0), request(Command.EVAL, script.text(), keys, args));
            }
            return Future.failedFuture(e);
        }).recover(e -> fail("run " + script.file(), e));
    }

    private static Request request(Command command, String script, List<String> keys, List<Object> args) {
        Request request = Request.cmd(command).arg(script).arg(keys.size());
        for (String key : keys) {
            request.arg(key);
        }
        for (Object arg : args) {
            request.arg(arg.toString());
        }
        return request;
    }

    private <T> Future<T> fail(String what, Throwable cause) {
        if (cause instanceof DelayedJobsException) {
            return Future.failedFuture(cause);
        }
        // Some failures carry no message (a connection closed under a call, at a Sentinel switch): their class tells.
        return Future.failedFuture(new DelayedJobsException("Redis failed to " + what + ": " + Causes.message(cause)
                + deniedHint(cause.getMessage()), cause));
    }

    /**
     * What an ACL refusal does not say: Redis names neither the key a user may not touch nor the command a script may
     * not run (a security trial read "can't run this command or subcommand script: a2d7…").
     */
    private String deniedHint(String message) {
        if (message == null) {
            return "";
        }
        if (message.startsWith("NOPERM") && message.contains("keys")
                || message.contains("user executing the script can't access at least one of the keys")) {
            return " (the Redis user needs the keys of the key prefix: ~" + config.keyPrefix() + ":*)";
        }
        if (message.contains("user executing the script can't run this command")) {
            return " (the readiness check names the commands and channels the Redis user may not use)";
        }
        return "";
    }

    /** Outcome of {@code schedule}: what happened and the due time the stored job has. */
    public record Scheduled(ScheduleResult result, long dueMs) {
    }

    public Future<Scheduled> schedule(String queue, String id, String payload, long dueOrDelayMs, boolean relative,
            OnConflict onConflict) {
        // The job joins its shard's waiting jobs at once, and the shard count is checked before they are sent, so
        // that the schedule calls of one id apply in the order they are made, even while a queue's check is under way.
        ScheduleBatches batches = scheduleBatches.computeIfAbsent(queue, q -> new ScheduleBatches(this, vertx,
                keysOf(q), QueueSettings.of(config, q).scheduleLinger().toMillis()));
        if (lingerStopped) {
            batches.stopLingering(); // a queue first used after the stop, or made while it flushed
        }
        return batches.add(batches.keys().shardOf(id), new ScheduleBatches.Job(id, payload, dueOrDelayMs, relative,
                onConflict.name(), QueueKeys.bucketOf(id)));
    }

    /** Sends the jobs waiting for their schedule linger at once, and lets no job wait from now on (a stop). */
    public void flushLingeringSchedules() {
        lingerStopped = true;
        scheduleBatches.values().forEach(ScheduleBatches::stopLingering);
    }

    /** Creates or updates a recurring job, armed (when new or changed) at its first occurrence by the Redis clock. */
    public Future<Scheduled> recurring(String queue, String id, String payload, CronSchedule schedule) {
        // The clock first: a cron with no time left is refused before the queue's first use records its shard count.
        return time().compose(now -> {
            long first = schedule.next(Instant.ofEpochMilli(now)).orElseThrow(() -> new IllegalArgumentException(
                    "cron must match some time after now, '" + schedule.expression() + "' matches none")).toEpochMilli();
            return queue(queue).compose(k -> {
                int shard = k.shardOf(id);
                return run(Script.RECURRING, k.shard(shard),
                        List.of(id, payload, schedule.encode(), first, k.wakeChannel(), shard));
            });
        }).map(r -> new Scheduled(ScheduleResult.valueOf(r.get(0).toString()), r.get(1).toLong()));
    }

    /**
     * Registers a schedule that has no occurrence left (a static one deployed after its year): a job with another
     * schedule or payload is removed, as a change replaces it, and nothing is armed. Returns whether a job of this
     * schedule and payload was kept (its last occurrence still pending, running or dead).
     */
    public Future<Boolean> endedRecurring(String queue, String id, String payload, CronSchedule schedule) {
        return queue(queue).compose(k -> {
            int shard = k.shardOf(id);
            return run(Script.RECURRING, k.shard(shard),
                    List.of(id, payload, schedule.encode(), "", k.wakeChannel(), shard));
        }).map(r -> r.get(0).toString().equals(ScheduleResult.KEPT.name()));
    }

    /** Publishes a message; the reply counts the subscribers that received it. */
    public Future<Response> publish(String channel, String message) {
        return connection.send(null, Request.cmd(Command.PUBLISH).arg(channel).arg(message))
                .recover(e -> fail("publish on " + channel, e));
    }

    /**
     * Publishes a message on a node other than {@code node} when the shards are on a cluster (another master), as
     * {@link #publish} elsewhere: a message that comes back to a subscriber on {@code node} then went through the
     * cluster, and proves that node still belongs to it.
     */
    public Future<Response> publishElsewhere(String channel, String message, String node) {
        return connection.sendElsewhere(node, Request.cmd(Command.PUBLISH).arg(channel).arg(message))
                .recover(e -> fail("publish on " + channel, e));
    }

    /** The Redis server's clock, in ms since the epoch. */
    public Future<Long> time() {
        return connection.send(null, Request.cmd(Command.TIME)).recover(e -> fail("read the time", e))
                .map(r -> r.get(0).toLong() * 1000 + r.get(1).toLong() / 1000);
    }

    public Future<Boolean> cancel(String queue, String id) {
        return withQueueKeys(queue, k -> cancel(k, id));
    }

    public Future<Boolean> cancel(QueueKeys k, String id) {
        int shard = k.shardOf(id);
        return run(Script.CANCEL, k.shard(shard), List.of(id, k.wakeChannel(), shard)).map(r -> r.toInteger() == 1);
    }

    public Future<Boolean> reschedule(String queue, String id, long dueOrDelayMs, boolean relative) {
        return withQueueKeys(queue, k -> {
            int shard = k.shardOf(id);
            return run(Script.RESCHEDULE, k.shard(shard),
                    List.of(id, dueOrDelayMs, relative ? "in" : "at", k.wakeChannel(), shard)).map(r -> r.toInteger() == 1);
        });
    }

    public Future<Optional<JobInfo>> find(String queue, String id) {
        return withQueueKeys(queue, k -> find(k, id));
    }

    public Future<Optional<JobInfo>> find(QueueKeys k, String id) {
        return run(Script.FIND, k.shard(k.shardOf(id)), List.of(id)).map(r -> {
            if (r == null) {
                return Optional.empty();
            }
            JobInfo.State state = JobInfo.State.valueOf(r.get(0).toString());
            JobInfo info = info(k.queue(), id, state, r.get(1), r.get(2), r.get(3));
            // A pending job in retry backoff runs at its score, not at the due time it was scheduled for.
            return Optional.of(state != JobInfo.State.PENDING ? info
                    : new JobInfo(k.queue(), id, state, Instant.ofEpochMilli(r.get(4).toLong()), info.attempts(),
                            info.lastError(), info.payload(), info.cron()));
        });
    }

    private static JobInfo info(String queue, String id, JobInfo.State state, Response envelope, Response error,
            Response cron) {
        Envelope e = Envelope.parse(envelope.toString());
        // The cron hash holds 'misfire|zone|expression'; JobInfo shows the expression.
        String schedule = cron == null ? null : cron.toString();
        return new JobInfo(queue, id, state, Instant.ofEpochMilli(e.dueMs()), e.attempts(),
                error == null ? null : error.toString(), e.payload(),
                schedule == null ? null : schedule.substring(schedule.indexOf('|', schedule.indexOf('|') + 1) + 1));
    }

    public Future<Boolean> requeue(String queue, String id) {
        return withQueueKeys(queue, k -> requeue(k, id));
    }

    public Future<Boolean> requeue(QueueKeys k, String id) {
        int shard = k.shardOf(id);
        return run(Script.REQUEUE, k.shard(shard), List.of(id, k.wakeChannel(), shard)).map(r -> r.toInteger() == 1);
    }

    public Future<QueueStats> stats(String queue) {
        return withQueueKeys(queue, this::stats);
    }

    /**
     * Runs an operation with the keys of a queue by the shard count recorded for it (the configured one when none is,
     * or it is no count), without checking that count against this application's settings or remembering the queue:
     * for the queues of {@link #storedQueues()} that the application does not use, another application's or a renamed
     * one's. Looking at them through the checked calls would count another application's count as a disagreement of
     * this one (readiness DOWN), and an agreeing one would be recorded again at each poll interval, so that a removed
     * queue would keep coming back.
     */
    public <T> Future<T> asStored(String queue, Function<QueueKeys, Future<T>> operation) {
        QueueKeys configured = keysOf(queue);
        return connection.send(configured.shardCountKey(), Request.cmd(Command.GET).arg(configured.shardCountKey()))
                .recover(e -> fail("read the shard count of queue '" + queue + "'", e)).compose(recorded -> {
                    int shards = recorded == null ? -1 : shardCount(recorded.toString());
                    return operation.apply(shards < 1 || shards > 1024 ? configured
                            : new QueueKeys(config.keyPrefix(), queue, shards));
                });
    }

    public Future<QueueStats> stats(QueueKeys k) {
        List<Future<Response>> shards = new ArrayList<>();
        for (int s = 0; s < k.shards(); s++) {
            shards.add(run(Script.STATS, k.shard(s), List.of()));
        }
        return Future.all(shards).map(all -> {
            long pending = 0, running = 0, dead = 0, now = 0, head = Long.MAX_VALUE;
            for (Future<Response> f : shards) {
                Response r = f.result();
                pending += r.get(0).toLong();
                running += r.get(1).toLong();
                dead += r.get(2).toLong();
                long shardHead = r.get(3).toLong();
                if (shardHead >= 0) {
                    head = Math.min(head, shardHead);
                }
                now = Math.max(now, r.get(4).toLong());
            }
            Optional<Instant> next = head == Long.MAX_VALUE ? Optional.empty()
                    : Optional.of(Instant.ofEpochMilli(head));
            Duration lag = head < now ? Duration.ofMillis(now - head) : Duration.ZERO;
            return new QueueStats(pending, running, dead, next, lag);
        });
    }

    public Future<List<JobInfo>> deadLetters(String queue, int limit) {
        return withQueueKeys(queue, k -> deadLetters(k, limit));
    }

    public Future<List<JobInfo>> deadLetters(QueueKeys k, int limit) {
        List<Future<Response>> shards = new ArrayList<>();
        for (int s = 0; s < k.shards(); s++) {
            shards.add(run(Script.DEAD_LETTERS, k.shard(s), List.of(limit)));
        }
        return Future.all(shards).map(all -> {
            record Dead(long diedAt, JobInfo info) {
            }
            List<Dead> dead = new ArrayList<>();
            for (Future<Response> f : shards) {
                Response r = f.result();
                for (int i = 0; i < r.size(); i += 5) {
                    dead.add(new Dead(r.get(i + 1).toLong(), info(k.queue(), r.get(i).toString(), JobInfo.State.DEAD,
                            r.get(i + 2), r.get(i + 3), r.get(i + 4))));
                }
            }
            return dead.stream().sorted(Comparator.comparingLong(Dead::diedAt).reversed()).limit(limit)
                    .map(Dead::info).toList();
        });
    }

    /** A job handed to a worker by {@code claim}; the payload is its JSON text in UTF-8. */
    public record Claimed(String id, String token, int attempt, long dueMs, byte[] payload, String cron) {
    }

    /**
     * A reading of a Redis server's clock (µs since the epoch), taken while a call sent at {@code sentNanos} ran, and
     * the {@link System#nanoTime()} at which its answer arrived here: since the answer that clock has run at least as
     * long as this JVM's, and since the call was sent at most as long (given clocks that run at the same rate).
     */
    public record ClockReading(long redisMicros, long sentNanos, long receivedNanos) {

        /** A lower bound of that server's clock now, in µs. */
        public long atLeastMicros() {
            return redisMicros + (System.nanoTime() - receivedNanos) / 1000;
        }

        /** An upper bound of that server's clock at {@code nanos} of this JVM, before or after the call, in µs. */
        public long atMostMicros(long nanos) {
            // Rounded up, as the µs Redis read may have been all but over.
            return redisMicros + 1 - Math.floorDiv(sentNanos - nanos, 1000);
        }
    }

    /**
     * A job the claim moved to the dead letters, its lease having run out on its last attempt: {@code token} and
     * {@code attempt} are those of that delivery.
     */
    public record Buried(String id, String token, int attempt, long dueMs) {
    }

    /**
     * What a claim returned: the Redis clock as the call ended, the earliest score left in the shard ({@code -1} when
     * empty), whether that time is one to claim at, not ahead of ({@code nextDueOnly}: within the claim's reach ahead,
     * yet not taken by a claim with room left ahead, so a retry's time or a lease's end), the claimed jobs and those it
     * moved to the dead letters.
     */
    public record ClaimBatch(ClockReading clock, long nextMs, boolean nextDueOnly, List<Claimed> jobs,
            List<Buried> buried) {

        public long nowMs() {
            return clock.redisMicros() / 1000;
        }
    }

    /**
     * A lower bound of the Redis clock now, in µs, for starting the jobs of {@code batch} claimed ahead at their due
     * time and never before. Redis writes the answers of the calls it read together only once it ran them all, so a
     * claim's reading is as old as the calls run after it; with one server for every shard, the reading of the claim
     * answered last (maybe another queue's) bounds the same clock more tightly.
     */
    public long redisClockAtLeast(ClaimBatch batch) {
        long own = batch.clock().atLeastMicros();
        ClockReading last = cluster ? null : lastClaimClock.get();
        return last == null ? own : Math.max(own, last.atLeastMicros());
    }

    /**
     * One shard's part of a claim: acknowledge {@code acks} (successful deliveries of the shard), then claim up to
     * {@code limit} due jobs and, when no more are due, up to {@code aheadLimit} jobs due within {@code aheadMs}.
     */
    public record ClaimRequest(int shard, int limit, long aheadMs, int aheadLimit, List<Ack> acks) {
    }

    /** Claims from one shard; see {@link ClaimRequest}. */
    public Future<ClaimBatch> claim(QueueKeys k, int shard, int limit, long aheadMs, int aheadLimit,
            QueueSettings settings, List<Ack> acks) {
        return claim(k, settings, List.of(new ClaimRequest(shard, limit, aheadMs, aheadLimit, acks))).get(0);
    }

    /**
     * Whether one script call may carry several shards of the queue: one server holds them all, and no call of the
     * queue failed within the last minute.
     */
    boolean shardsTogether(String queue) {
        return !cluster && shardsAloneUntil.getOrDefault(queue, 0L) - System.nanoTime() <= 0;
    }

    /** A script call of the queue failed: for a minute from now, each call carries one shard. */
    void callFailed(String queue) {
        if (!cluster) {
            shardsAloneUntil.put(queue, System.nanoTime() + SHARDS_ALONE_NANOS);
        }
    }

    /**
     * Claims from several shards of a queue: in one script call when one Redis server holds every shard, which saves
     * Redis a call's fixed cost per shard (the larger part of a claim of a few jobs); on a cluster, where the shards
     * live on different nodes, in one call per shard; and for a minute after a call of the queue failed (see
     * {@link #shardsTogether(String)}). Returns each request's batch, in the order of the requests.
     */
    public List<Future<ClaimBatch>> claim(QueueKeys k, QueueSettings settings, List<ClaimRequest> requests) {
        if (requests.size() == 1 || !shardsTogether(k.queue())) {
            return requests.stream().map(request -> claimCall(k, settings, List.of(request)).map(l -> l.get(0)))
                    .toList();
        }
        Future<List<ClaimBatch>> call = claimCall(k, settings, requests);
        List<Future<ClaimBatch>> batches = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            int request = i;
            batches.add(call.map(l -> l.get(request)));
        }
        return batches;
    }

    private Future<List<ClaimBatch>> claimCall(QueueKeys k, QueueSettings settings, List<ClaimRequest> requests) {
        List<String> keys = new ArrayList<>(9 * requests.size());
        List<Object> args = new ArrayList<>(5 + requests.size() * 5);
        args.addAll(List.of(settings.lease().toMillis(), settings.maxAttempts(), deadLettersPerShard(k),
                config.deadLetter().retention().toMillis(), k.wakeChannel()));
        for (ClaimRequest request : requests) {
            keys.addAll(k.shard(request.shard()));
            args.addAll(List.of(request.shard(), request.limit(), request.aheadMs(), request.aheadLimit(),
                    request.acks().size()));
            addAcks(args, request.acks());
        }
        long sentNanos = System.nanoTime();
        return run(Script.CLAIM, keys, args).onFailure(e -> callFailed(k.queue())).map(r -> {
            ClockReading clock = new ClockReading(r.get(0).toLong(), sentNanos, System.nanoTime());
            lastClaimClock.set(clock);
            List<ClaimBatch> batches = new ArrayList<>(requests.size());
            int i = 1;
            for (int request = 0; request < requests.size(); request++) {
                long next = r.get(i).toLong();
                boolean nextDueOnly = r.get(i + 1).toInteger() == 1;
                int count = r.get(i + 2).toInteger();
                List<Claimed> jobs = new ArrayList<>(count);
                for (int j = i + 3; j < i + 3 + 6 * count; j += 6) {
                    String cron = r.get(j + 5).toString();
                    jobs.add(new Claimed(r.get(j).toString(), r.get(j + 1).toString(), r.get(j + 2).toInteger(),
                            r.get(j + 3).toLong(), r.get(j + 4).toBytes(), cron.isEmpty() ? null : cron));
                }
                i += 3 + 6 * count;
                int buriedCount = r.get(i).toInteger();
                List<Buried> buried = new ArrayList<>(buriedCount);
                for (int j = i + 1; j < i + 1 + 4 * buriedCount; j += 4) {
                    buried.add(new Buried(r.get(j).toString(), r.get(j + 1).toString(), r.get(j + 2).toInteger(),
                            r.get(j + 3).toLong()));
                }
                batches.add(new ClaimBatch(clock, next, nextDueOnly, jobs, buried));
                i += 1 + 4 * buriedCount;
            }
            return batches;
        });
    }

    /** Acknowledges jobs of one shard; {@code rearmMs} is the next occurrence of a recurring job, else null. */
    public record Ack(String id, String token, Long rearmMs) {
    }

    public Future<Integer> ack(QueueKeys k, int shard, List<Ack> acks) {
        List<Object> args = new ArrayList<>(2 + acks.size() * 3);
        args.add(k.wakeChannel());
        args.add(shard);
        addAcks(args, acks);
        return run(Script.ACK, k.shard(shard), args).map(Response::toInteger);
    }

    /** Adds (id, token) pairs, as renew.lua and release.lua take them. */
    private static void addClaims(List<Object> args, List<String[]> claims) {
        for (String[] c : claims) {
            args.add(c[0]);
            args.add(c[1]);
        }
    }

    private static void addAcks(List<Object> args, List<Ack> acks) {
        for (Ack a : acks) {
            args.add(a.id());
            args.add(a.token());
            args.add(a.rearmMs() == null ? "" : a.rearmMs());
        }
    }

    /** Outcome of {@code retry}. */
    public enum RetryOutcome {
        STALE,
        RETRIED,
        DEAD,
        /** A recurring job that could not be retried before its next occurrence: that occurrence is armed. */
        REARMED
    }

    /**
     * Records a failed delivery. {@code rearmMs} is the next occurrence of a recurring job (null for a plain job),
     * armed instead of a retry that would come too late or instead of the dead letters.
     */
    public Future<RetryOutcome> retry(QueueKeys k, int shard, String id, String token, long delayMs, String error,
            boolean deadAtOnce, Long rearmMs, QueueSettings settings) {
        return run(Script.RETRY, k.shard(shard), List.of(id, token, delayMs, error, settings.maxAttempts(),
                deadLettersPerShard(k), config.deadLetter().retention().toMillis(),
                deadAtOnce ? "dead" : "retry", k.wakeChannel(), shard, rearmMs == null ? "" : rearmMs))
                .map(r -> RetryOutcome.values()[r.get(0).toInteger()]);
    }

    /** The dead-letter bound is per queue; each shard keeps its share, and at least one. */
    private int deadLettersPerShard(QueueKeys k) {
        return Math.max(1, config.deadLetter().maxSize() / k.shards());
    }

    /** Renews the leases of the given (id, token) pairs; returns the tokens whose claim is lost. */
    public Future<List<String>> renew(QueueKeys k, int shard, List<String[]> claims, Duration lease) {
        List<Object> args = new ArrayList<>(1 + claims.size() * 2);
        args.add(lease.toMillis());
        addClaims(args, claims);
        return run(Script.RENEW, k.shard(shard), args).map(r -> {
            List<String> lost = new ArrayList<>(r.size());
            for (Response token : r) {
                lost.add(token.toString());
            }
            return lost;
        });
    }

    /** Hands back claimed jobs that did not start. */
    public Future<Integer> release(QueueKeys k, int shard, List<String[]> claims) {
        List<Object> args = new ArrayList<>(2 + claims.size() * 2);
        args.add(k.wakeChannel());
        args.add(shard);
        addClaims(args, claims);
        return run(Script.RELEASE, k.shard(shard), args).map(Response::toInteger);
    }
}
