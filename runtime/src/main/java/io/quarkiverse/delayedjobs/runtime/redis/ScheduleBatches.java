package io.quarkiverse.delayedjobs.runtime.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.Causes;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClockReading;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Scheduled;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Response;

/**
 * Coalesces the schedule calls of one queue. Per shard, while a call is under way, the jobs scheduled meanwhile wait
 * and then go together in the next call, up to {@value #MAX_JOBS_PER_CALL} at a time; and at most
 * {@value #MAX_CALLS_UNDER_WAY} calls of the queue are under way at once, the shards taking turns in the order their
 * jobs became ready to go. A job scheduled when no call is under way goes at once; while others are, it goes from
 * the event loop of the connection, with the jobs scheduled until that loop takes it (a producer thread's burst then
 * shares a call instead of taking one call per free place). When one Redis server holds every shard, the jobs of all
 * the shards ready to go share one call; on a cluster, and for a minute after a call of the queue failed (a shard's
 * key of the wrong type must not fail the others' jobs), each shard's go in a call of their own. Many concurrent
 * producers thus pay the script call once per batch, and the batches grow with the load. With a
 * {@code schedule-linger}, a job due later than {@value #LINGER_FLOOR_MS} ms also waits up to the linger for others,
 * and then the waiting jobs of every shard go: a steady stream of jobs reaches Redis in one call per linger (one per
 * shard on a cluster) instead of one call per job.
 */
final class ScheduleBatches {

    static final int MAX_JOBS_PER_CALL = 64;
    /**
     * The most schedule calls of a queue under way at once, on a cluster per master. Under load the jobs of the shards
     * wait meanwhile and go in fewer, larger calls (a call of 8 jobs costs Redis 18 % less per job than one of 4);
     * below it, nothing waits.
     */
    static final int MAX_CALLS_UNDER_WAY = 4;
    /** Jobs due sooner than this never wait: the linger must not make a job late, nor delay a job due now. */
    static final long LINGER_FLOOR_MS = 1000;

    /**
     * One job to store: the values schedule.lua takes for it, who waits for its result, and when it was scheduled
     * ({@link System#nanoTime()}).
     */
    record Job(String id, String payload, long dueOrDelayMs, boolean relative, String policy, int bucket,
            Promise<Scheduled> result, long scheduledNanos) {

        Job(String id, String payload, long dueOrDelayMs, boolean relative, String policy, int bucket) {
            this(id, payload, dueOrDelayMs, relative, policy, bucket, Promise.promise(), System.nanoTime());
        }

        /**
         * The delay still to go once the job waited here: a delay counts from the schedule call, and Redis measures
         * it from when the job arrives. Whole ms waited only, so that the job is never due earlier than asked.
         */
        long delayLeftMs() {
            return Math.max(0, dueOrDelayMs - (System.nanoTime() - scheduledNanos) / 1_000_000);
        }

        /** Whether the job is due within the linger floor, by this instance's clock for a due time. */
        boolean dueSoon() {
            long inMs = relative ? dueOrDelayMs : dueOrDelayMs - System.currentTimeMillis();
            return inMs < LINGER_FLOOR_MS;
        }
    }

    private final Vertx vertx;
    /** Where the sends queued while other calls are under way run: the event loop of the store's connection. */
    private final Context context;
    private final JobStore store;
    private final QueueKeys keys;
    private final Shard[] shards;
    /** Shards whose waiting jobs are to go, in the order they became so; none of them has a call under way. */
    private final Queue<Shard> ready = new ArrayDeque<>();
    private int callsUnderWay;
    /**
     * On a cluster, the calls under way per master: each has the room a queue has on one server, so that a master that
     * does not answer holds up the jobs of its own shards only.
     */
    private final Map<String, Integer> callsPerNode = new HashMap<>();
    /** A send of the ready shards is queued on the context: the jobs scheduled until it runs go with it. */
    private boolean sendQueued;
    /** 0 once the application stops: a timer might not fire any more. */
    private volatile long lingerMs;
    private boolean flushArmed;

    ScheduleBatches(JobStore store, Vertx vertx, QueueKeys keys, long lingerMs) {
        this.vertx = vertx;
        this.context = store.connectionContext();
        this.store = store;
        this.keys = keys;
        this.lingerMs = lingerMs;
        this.shards = new Shard[keys.shards()];
        ShardClock serverClock = store.cluster() ? null : new ShardClock();
        for (int s = 0; s < shards.length; s++) {
            shards[s] = new Shard(s, serverClock != null ? serverClock : new ShardClock());
        }
    }

    QueueKeys keys() {
        return keys;
    }

    Future<Scheduled> add(int shard, Job job) {
        long linger = lingerMs;
        boolean now = linger == 0 || job.dueSoon();
        List<Call> calls = null;
        boolean queueSend = false;
        synchronized (this) {
            shards[shard].waiting.add(job);
            if (now) {
                wantSent(shards[shard]);
            }
            if (callsUnderWay == 0) {
                calls = takeCalls();
            } else if (!sendQueued && !ready.isEmpty() && (callsUnderWay < MAX_CALLS_UNDER_WAY || store.cluster())) {
                // Other calls are under way: the job goes a moment later, on the context, with those scheduled
                // meanwhile, rather than in a call of its own. (The request is written from there anyway.)
                sendQueued = queueSend = true;
            }
        }
        send(calls);
        if (queueSend) {
            try {
                context.runOnContext(v -> sendQueued());
            } catch (RejectedExecutionException e) {
                sendQueued(); // Vert.x is closing: the job must not wait for a loop that is gone
            }
        }
        if (!now) {
            if (lingerMs == 0) {
                flushAll(); // the application stopped meanwhile
            } else {
                armFlush(linger);
            }
        }
        return job.result().future();
    }

    private void sendQueued() {
        List<Call> calls;
        synchronized (this) {
            sendQueued = false;
            calls = takeCalls();
        }
        send(calls);
    }

    /** Sends the waiting jobs now, and every job at once from now on. */
    void stopLingering() {
        lingerMs = 0;
        flushAll();
    }

    private void armFlush(long linger) {
        synchronized (this) {
            if (flushArmed) {
                return;
            }
            flushArmed = true;
        }
        vertx.setTimer(linger, id -> {
            synchronized (this) {
                flushArmed = false;
            }
            flushAll();
        });
    }

    private void flushAll() {
        List<Call> calls;
        synchronized (this) {
            for (Shard shard : shards) {
                wantSent(shard);
            }
            calls = takeCalls();
        }
        send(calls);
    }

    /** Marks the waiting jobs of a shard as to go as soon as it may send. Lock held. */
    private void wantSent(Shard shard) {
        shard.sendWanted = true;
        if (!shard.underWay && !shard.ready && !shard.waiting.isEmpty()) {
            shard.ready = true;
            ready.add(shard);
        }
    }

    /**
     * The calls to make now, while fewer than the most calls are under way: the ready shards, all in one call when one
     * server holds them, else one call each; on a cluster, while fewer are under way on the shard's master. Lock held.
     */
    private List<Call> takeCalls() {
        List<Call> calls = null;
        if (store.cluster()) {
            for (Iterator<Shard> it = ready.iterator(); it.hasNext();) {
                Shard shard = it.next();
                String node = String.valueOf(store.nodeOf(keys.shard(shard.index).get(0)));
                if (callsPerNode.getOrDefault(node, 0) < MAX_CALLS_UNDER_WAY) {
                    it.remove();
                    callsPerNode.merge(node, 1, Integer::sum);
                    callsUnderWay++;
                    calls = calls == null ? new ArrayList<>(2) : calls;
                    calls.add(new Call(List.of(take(shard)), node));
                }
            }
            return calls;
        }
        boolean shardsTogether = !ready.isEmpty() && store.shardsTogether(keys.queue());
        while (callsUnderWay < MAX_CALLS_UNDER_WAY && !ready.isEmpty()) {
            List<Part> parts = new ArrayList<>(shardsTogether ? ready.size() : 1);
            do {
                parts.add(take(ready.poll()));
            } while (shardsTogether && !ready.isEmpty());
            callsUnderWay++;
            if (calls == null) {
                calls = new ArrayList<>(2);
            }
            calls.add(new Call(parts, null));
        }
        return calls;
    }

    /** Takes a ready shard's waiting jobs for a call, as many as one carries. Lock held. */
    private static Part take(Shard shard) {
        shard.ready = false;
        List<Job> batch = new ArrayList<>(Math.min(shard.waiting.size(), MAX_JOBS_PER_CALL));
        while (!shard.waiting.isEmpty() && batch.size() < MAX_JOBS_PER_CALL) {
            batch.add(shard.waiting.poll());
        }
        shard.underWay = true;
        // Jobs beyond one call's share go right after it.
        shard.sendWanted = !shard.waiting.isEmpty();
        return new Part(shard, batch);
    }

    private void send(List<Call> calls) {
        if (calls != null) {
            calls.forEach(call -> call.send(store, keys).onComplete(ar -> ended(call, ar.cause())));
        }
    }

    /**
     * A call ended, with {@code failure} or null. When it went unanswered for {@code redis-timeout}, the jobs waiting
     * behind it in its shards fail unsent: otherwise each call of the shard would time out in turn, and the last job
     * of a burst fail many timeouts after it was made.
     */
    private void ended(Call call, Throwable failure) {
        List<Call> calls;
        List<Job> unsent = new ArrayList<>();
        boolean unanswered = unanswered(failure);
        synchronized (this) {
            callsUnderWay--;
            if (call.node() != null) {
                callsPerNode.merge(call.node(), -1, Integer::sum);
            }
            for (Part part : call.parts()) {
                Shard shard = part.shard();
                shard.underWay = false;
                if (unanswered) {
                    unsent.addAll(shard.waiting);
                    shard.waiting.clear();
                    shard.sendWanted = false;
                }
                if (shard.sendWanted) {
                    wantSent(shard);
                }
            }
            calls = takeCalls();
        }
        send(calls);
        for (Job job : unsent) {
            job.result().fail(new DelayedJobsException("Redis did not take job " + job.id() + " of queue "
                    + keys.queue() + ": the call before it in its shard went unanswered (" + failure.getMessage()
                    + "), and it was not sent", failure));
        }
    }

    private static boolean unanswered(Throwable failure) {
        return Causes.find(failure, TimeoutException.class) != null;
    }

    /** The jobs of one shard in a call. */
    private record Part(Shard shard, List<Job> jobs) {
    }

    /**
     * One script call: the jobs of one shard, or of several when one server holds them all; {@code node}, on a
     * cluster, the master it was counted against.
     */
    private record Call(List<Part> parts, String node) {

        /** Stores the jobs, once the queue's shard count is checked, and completes each job's result. */
        Future<Response> send(JobStore store, QueueKeys keys) {
            int jobCount = 0;
            for (Part part : parts) {
                jobCount += part.jobs().size();
            }
            // Sized once: growing them showed in W1's profile of the event loop (ArrayList.grow).
            List<String> callKeys = new ArrayList<>(9 * parts.size());
            List<Object> args = new ArrayList<>(1 + 2 * parts.size() + 6 * jobCount);
            List<Job> jobs = new ArrayList<>(jobCount);
            long sentNanos = System.nanoTime();
            long sentWallMs = System.currentTimeMillis();
            args.add(keys.wakeChannel());
            for (Part part : parts) {
                callKeys.addAll(keys.shard(part.shard().index));
                args.add(part.shard().index);
                // One shard's jobs follow its index; several shards' each follow their index and their number.
                if (parts.size() > 1) {
                    args.add(part.jobs().size());
                }
                ClockReading clock = part.shard().clock.serving(sentNanos, sentWallMs);
                for (Job job : part.jobs()) {
                    args.add(job.id());
                    args.add(job.payload());
                    long dueByClock = job.relative() ? ShardClock.dueMs(clock, job.dueOrDelayMs(), job.scheduledNanos())
                            : -1;
                    if (!job.relative() || dueByClock >= 0) {
                        args.add(job.relative() ? dueByClock : job.dueOrDelayMs());
                        args.add("at");
                    } else {
                        args.add(job.delayLeftMs());
                        args.add("in");
                    }
                    args.add(job.policy());
                    args.add(job.bucket());
                    jobs.add(job);
                }
            }
            return store.queue(keys.queue()).compose(checked -> store.run(Script.SCHEDULE, callKeys, args))
                    .onComplete(ar -> {
                        if (ar.succeeded()) {
                            // The answer ends with the clock reading the script took.
                            ClockReading read = new ClockReading(ar.result().get(2 * jobs.size()).toLong(), sentNanos,
                                    System.nanoTime());
                            long wallMs = System.currentTimeMillis();
                            parts.stream().map(part -> part.shard().clock).distinct()
                                    .forEach(clock -> clock.offer(read, sentWallMs, wallMs));
                        }
                        boolean refused = ar.failed() && refusedDue(ar.cause());
                        if (ar.failed() && !refused) {
                            store.callFailed(keys.queue());
                        }
                        if (refused && jobs.size() > 1) {
                            // One delay ends past the latest due time by the Redis clock, though not by this
                            // JVM's when it was checked: the script refused the call before writing anything. Each
                            // job goes alone, so that only that one fails.
                            for (Part part : parts) {
                                for (Job job : part.jobs()) {
                                    new Call(List.of(new Part(part.shard(), List.of(job))), null).send(store, keys);
                                }
                            }
                            return;
                        }
                        for (int i = 0; i < jobs.size(); i++) {
                            if (ar.failed()) {
                                jobs.get(i).result().fail(ar.cause());
                            } else {
                                Response r = ar.result();
                                jobs.get(i).result().complete(new Scheduled(
                                        ScheduleResult.valueOf(r.get(2 * i).toString()), r.get(2 * i + 1).toLong()));
                            }
                        }
                    });
        }
    }

    /** Whether the script refused a due time (the only input of a Java producer it checks beyond the Java checks). */
    private static boolean refusedDue(Throwable failure) {
        Throwable redis = failure.getCause() != null ? failure.getCause() : failure;
        return redis.getMessage() != null && redis.getMessage().startsWith("ERR due must");
    }

    /** The jobs of one shard; guarded by the lock of the {@link ScheduleBatches}. */
    private static final class Shard {

        private final int index;
        private final Queue<Job> waiting = new ArrayDeque<>();
        private boolean underWay;
        /** Whether the waiting jobs are to go as soon as no call is under way (else they wait for a flush). */
        private boolean sendWanted;
        /** Whether the shard is in the queue of ready shards. */
        private boolean ready;
        /**
         * The Redis clock of the shard's server, as the answers of the queue's schedule calls tell it: with one
         * server, one clock for every shard of the queue, so that the first answer of any shows a step of that clock.
         */
        private final ShardClock clock;

        Shard(int index, ShardClock clock) {
            this.index = index;
            this.clock = clock;
        }
    }
}
