package io.quarkiverse.delayedjobs.runtime.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.NonRetryableJobException;
import io.quarkiverse.delayedjobs.runtime.Causes;
import io.quarkiverse.delayedjobs.runtime.JobListener;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.cron.OccurrencePlanner;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Ack;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Buried;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClaimBatch;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClaimRequest;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.RetryOutcome;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.impl.VertxInternal;

/**
 * The claim loop of one queue in this instance. It claims due jobs when it has free handlers, and sleeps until the
 * earliest known due time of its shards: a claim tells the next score of the shard it claimed from, and the wake
 * channel tells when a shard gets an earlier head. Every {@value #POLLS_PER_FULL_LOOK} poll intervals it looks at
 * every shard anyway.
 * <p>
 * When handlers finish quickly, it also claims ahead as many jobs as its handlers finish during one claim round trip
 * (at most twice {@code batch-size}), so that they never wait for Redis; slow handlers get no jobs claimed ahead,
 * which other instances could run meanwhile. While its handlers are busy it claims once half of the jobs it wants in
 * hand are free to claim (at most a batch): the other half keeps the handlers busy while the claim is under way, and a
 * busy queue claims full batches.
 * <p>
 * It claims ahead in time too: a shard is claimed from a fifth of {@code claim-ahead} before its earliest job is due,
 * taking the jobs due within {@code claim-ahead}, and each such job waits for its due time on a timer of its own
 * ({@link DueTimer}).
 * The other shards with a job due within {@code claim-ahead} are claimed from in the same go: the claims of such a
 * round go to Redis as one script call when one server holds every shard (one per shard on a cluster). Claimed jobs
 * not started yet stay under what the handlers get through within {@code claim-ahead} (two to eight batches): no job
 * is claimed ahead while more than that, less a batch, wait to start.
 * Jobs due one by one then cost one claim per stretch of time rather than one each. A claimed job ended by a producer
 * (cancelled, moved, replaced) before its handler started, held or waiting for a handler, is revoked on the wake
 * channel and does not start.
 * <p>
 * All state is confined to one event-loop context; handlers report back to it.
 */
final class QueueWorker {

    private static final Logger LOG = Logger.getLogger(QueueWorker.class);
    private static final long UNKNOWN = Long.MIN_VALUE;
    private static final long NOTHING = Long.MAX_VALUE;
    private static final long REDIS_FAILURE_PAUSE_MS = 1000;
    /**
     * Idle shards are looked at every this many poll intervals: the wake listener's heartbeat already proves every
     * poll interval that no news was missed, so this only guards against what no notification covers (hand edits).
     */
    private static final int POLLS_PER_FULL_LOOK = 10;
    private static final int MAX_ERROR_LENGTH = 4000;
    /**
     * The longest acks wait for the next claim of their shard to carry them, unless {@code claim-ahead} is longer: a
     * shard claimed ahead is claimed from again within {@code claim-ahead}.
     */
    private static final long MIN_ACK_DELAY_MS = 50;
    /** How long acks wait for those of other handlers finishing about then, when no claim of their shard is near. */
    private static final long ACK_GATHER_MS = 1;
    /** A shard is claimed from this fraction of {@code claim-ahead} before its earliest job is due. */
    private static final int LEAD_PER_CLAIM_AHEAD = 5;
    /**
     * Bounds, in batches of {@code batch-size}, of the jobs claimed but not started yet while claiming ahead (see
     * {@link #holdLimit()}).
     */
    private static final int MIN_HELD_BATCHES = 2;
    private static final int MAX_HELD_BATCHES = 8;
    /** Most jobs claimed ahead of the free handlers, in batches of {@code batch-size}, when handlers finish quickly. */
    private static final int AHEAD_BATCHES = 2;
    private static final long TOP_UP_DELAY_MS = 1;
    private static final double RUNNER_WORK_MS = 1;

    private final QueueKeys keys;
    private final QueueSettings settings;
    private final JobStore store;
    private final HandlerDispatcher dispatcher;
    private final Vertx vertx;
    private final Context context;
    private final DueTimer dueTimer;
    private final long fullLookMs;
    private final long ackDelayMs;
    private final OccurrencePlanner planner;
    private final FailedCalls failedCalls;
    private final LostLeases lostLeases;

    /** Per shard, the earliest score known to be in it, by the Redis clock; UNKNOWN means "look now". */
    private final long[] nextDue;
    /**
     * Per shard, whether its earliest job, though near, is not to be claimed ahead (a job waiting for a retry, which
     * claims leave for its time): the shard is claimed from when that job is due.
     */
    private final boolean[] dueOnly;
    /** Claimed deliveries not handed back yet: those waiting for a handler and those whose handler runs. */
    private final Map<String, Delivery> running = new HashMap<>();
    private final Queue<Delivery> waiting = new ArrayDeque<>();
    /** Of the claimed deliveries, those claimed ahead of their due time: the timers that start them. */
    private final Map<String, ScheduledFuture<?>> held = new HashMap<>();
    /** Per shard, tokens revoked while a claim was under way: its answer may hold them, and must drop them. */
    private final Map<Integer, Set<String>> revokedDuringClaim = new HashMap<>();
    /**
     * Averages (ms) that size the jobs claimed ahead and the blocking runners: a handler's own time, from its start
     * to its end, and a claim's round trip. The handler time is unknown until one finished.
     */
    private double meanHandlerMs = Double.NaN;
    private double claimRoundTripMs = 1;
    /** Handlers report here from their own threads; one event-loop task takes all that arrived. */
    private final Queue<Finished> finishedQueue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean finishedTaskPending = new AtomicBoolean();
    private final BlockingRunners runners;
    private long clockOffsetMs;
    private long nextFullCheck;
    private int shardCursor;
    /**
     * Per shard, whether a claim is under way; handlers reserved for the claims under way, and the jobs ahead of their
     * due time those claims may bring back.
     */
    private final boolean[] claiming;
    private final long[] wokenDuringClaim;
    private int claimsUnderWay;
    private int reserved;
    private int aheadReserved;
    private long topUpTimer = -1;
    private boolean topUpDue;
    /** Set by {@link #start()}: until then nothing claims. */
    private boolean started;
    private boolean stopped;
    /** The stop gave up waiting ({@code shutdown-timeout}): acks that fail are not sent again. */
    private boolean abandoned;
    /** Acks not written yet: counted from their handler's end until Redis takes them. */
    private int acksUnwritten;
    private ScheduledFuture<?> wakeTimer;
    private long wakeAt = NOTHING;
    private long renewTimer = -1;
    private Promise<Void> drained;
    /**
     * Acks wait here for the next claim of their shard, which carries them, or for {@link #ackDelayMs} at most; then
     * they go together in one call.
     */
    private final Map<Integer, List<Ack>> acksToSend = new HashMap<>();
    /** The claims {@link #planClaims()} decided on, which {@link #pump()} sends together. */
    private final List<ClaimRequest> round = new ArrayList<>();
    private final long[] ackTimers;
    private int writesUnderWay;

    QueueWorker(QueueKeys keys, QueueSettings settings, JobStore store, HandlerDispatcher dispatcher, Vertx vertx,
            DueTimer dueTimer, Duration pollInterval, OccurrencePlanner planner, FailedCalls failedCalls,
            LostLeases lostLeases) {
        this.keys = keys;
        this.failedCalls = failedCalls;
        this.lostLeases = lostLeases;
        this.settings = settings;
        this.store = store;
        this.dispatcher = dispatcher;
        this.vertx = vertx;
        // An event loop of its own, in turn among those of Vert.x: the queues spread over them, and a handler that
        // blocks one holds up only the queues on it. (Asked on the thread that starts the engine, getOrCreateContext()
        // gives every worker that thread's one context.)
        this.context = ((VertxInternal) vertx).createEventLoopContext();
        this.dueTimer = dueTimer;
        this.fullLookMs = pollInterval.toMillis() * POLLS_PER_FULL_LOOK;
        // A finished job's lease is no longer renewed while its ack waits: at most a third of the lease, the least
        // left since the last renewal being two thirds, so that no other instance can claim the job meanwhile.
        this.ackDelayMs = Math.max(MIN_ACK_DELAY_MS,
                Math.min(settings.claimAhead().toMillis(), settings.lease().toMillis() / 3));
        this.planner = planner;
        this.nextDue = new long[keys.shards()];
        this.dueOnly = new boolean[keys.shards()];
        this.claiming = new boolean[keys.shards()];
        this.wokenDuringClaim = new long[keys.shards()];
        Arrays.fill(wokenDuringClaim, NOTHING);
        this.runners = new BlockingRunners(vertx, context, settings.concurrency());
        this.ackTimers = new long[keys.shards()];
        Arrays.fill(ackTimers, -1);
    }

    void start() {
        context.runOnContext(v -> {
            started = true;
            wakeAll();
            renewTimer = vertx.setPeriodic(Math.max(100, settings.lease().toMillis() / 3), id -> renew());
        });
    }

    /** The event-loop context its state is confined to: the liveness check sees it answer there. */
    Context context() {
        return context;
    }

    /** Whether it was stopped; read on {@link #context()}. */
    boolean stopped() {
        return stopped;
    }

    /** A shard got a new earliest job (or we may have missed news): look at it when it is due. */
    void wake(int shard, long dueMs) {
        context.runOnContext(v -> {
            if (shard < 0 || shard >= nextDue.length) {
                return;
            }
            if (claiming[shard]) {
                // The claim under way may have read the shard before this job arrived: keep the news for its answer.
                wokenDuringClaim[shard] = Math.min(wokenDuringClaim[shard], dueMs);
            } else if (dueMs < nextDue[shard]) {
                nextDue[shard] = dueMs;
                dueOnly[shard] = false;
                pump();
            }
        });
    }

    /**
     * Forgets what is known of every shard and looks at all of them now; after a reconnect of the wake subscription,
     * also renews at once, so that held jobs revoked meanwhile are dropped before they start.
     */
    void wakeAll() {
        context.runOnContext(v -> {
            if (!started) {
                // Not started (the engine's start may have failed meanwhile): it claims nothing. Its start looks at
                // every shard anyway.
                return;
            }
            forgetShards();
            // A claim under way may have read its shard before the news missed meanwhile: its answer must not stand
            // for this look, so the shard is looked at again once it is back.
            for (int shard = 0; shard < claiming.length; shard++) {
                if (claiming[shard]) {
                    wokenDuringClaim[shard] = UNKNOWN;
                }
            }
            nextFullCheck = redisNow() + fullLookMs;
            renew();
            pump();
        });
    }

    /** Forgets what is known of the shards' earliest jobs: each is looked at on the next pump. */
    private void forgetShards() {
        Arrays.fill(nextDue, UNKNOWN);
        Arrays.fill(dueOnly, false);
    }

    private long redisNow() {
        return System.currentTimeMillis() + clockOffsetMs;
    }

    /** {@link #redisNow()} in µs, for timers finer than a millisecond. */
    private long redisNowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000 + clockOffsetMs * 1_000;
    }

    /** Plans a round of claims ({@link #planClaims()}) and sends it: in one call when one Redis server holds them. */
    private void pump() {
        planClaims();
        if (round.isEmpty()) {
            return;
        }
        List<ClaimRequest> requests = List.copyOf(round);
        round.clear();
        long sentAt = System.currentTimeMillis();
        long sentNanos = System.nanoTime();
        List<Future<ClaimBatch>> answers = store.claim(keys, settings, requests);
        int[] unanswered = { requests.size() };
        for (int i = 0; i < requests.size(); i++) {
            ClaimRequest request = requests.get(i);
            answers.get(i).onComplete(ar -> context.runOnContext(v -> {
                claimAnswered(request, sentAt, sentNanos, ar);
                // The next round is planned once this one is all back: planned after the first answer of a call, it
                // would claim from that shard alone while the other answers of the call wait their turn. On a cluster,
                // where each claim is a call of its own, after each answer: a claim whose master does not answer
                // would otherwise hold up the next claim, and the wake timer, of the shards answered meanwhile.
                if (--unanswered[0] == 0 || store.cluster()) {
                    pump();
                }
            }));
        }
    }

    /**
     * Claims due jobs while handlers are free (counting those claimed ahead of them), and jobs due within
     * {@code claim-ahead} to hold while fewer claimed jobs wait to start than {@link #holdLimit()} less a batch;
     * otherwise sleeps until the earliest known due time. With handlers to spare, every due shard is claimed from at
     * once, each for its share; when most handlers are busy, one shard is claimed from for all the free ones, and
     * only once a good batch is free or {@value #TOP_UP_DELAY_MS} ms went by, so that a busy queue claims in batches
     * rather than job by job.
     */
    private void planClaims() {
        if (stopped) {
            return;
        }
        long now = redisNow();
        if (now >= nextFullCheck) {
            forgetShards();
            nextFullCheck = now + fullLookMs;
        }
        // Jobs claimed but not started yet: held until due, or due and waiting for a handler. Counting the waiting
        // ones keeps a worker whose handlers fall behind from claiming ever more ahead; counting those the claims
        // under way may bring keeps a claim answered early (one master of a cluster is quicker than another) from
        // taking the room of one still out. Claiming ahead needs room for a batch more, so that a round over every
        // shard gets each a fair share rather than a job or two.
        int notStarted = held.size() + waiting.size() + aheadReserved;
        int holdLimit = holdLimit();
        long aheadMs = notStarted <= holdLimit - settings.batchSize() ? settings.claimAhead().toMillis() : 0;
        long leadMs = aheadMs / LEAD_PER_CLAIM_AHEAD;
        int due = 0;
        for (int shard = 0; shard < nextDue.length; shard++) {
            if (claimFrom(shard, leadMs) <= now && !claiming[shard]) {
                due++;
            }
        }
        if (due == 0) {
            armWakeTimer(leadMs, now);
            return;
        }
        // Deliveries in hand: handed to a handler or waiting for one, not those held until they are due.
        int inHand = running.size() - held.size();
        int wanted = settings.concurrency() + claimAhead();
        int free = wanted - inHand - reserved;
        // Jobs claimed ahead of their due time wait on timers, not for handlers: they have room of their own.
        int heldRoom = aheadMs > 0 ? holdLimit - notStarted : 0;
        if (free <= 0) {
            // With no handler to spare, only jobs to hold until they are due: jobs due now would wait for a handler,
            // and another instance may have one.
            List<Integer> shards = heldRoom > 0 ? aheadShards(now, now + aheadMs) : List.of();
            for (int shard : shards) {
                claim(shard, 0, aheadMs, (heldRoom + shards.size() - 1) / shards.size());
            }
            return; // a finishing handler, or a claim coming back, pumps again
        }
        // How many free handlers make a claim worth its round trip while others are busy: half of those wanted in hand,
        // so that the other half keeps the handlers going until the claim is back, and at most a batch.
        int goodBatch = Math.max(1, Math.min(settings.batchSize(), wanted / 2));
        boolean busy = inHand + reserved > 0;
        if (busy && free < goodBatch && !topUpDue) {
            if (topUpTimer < 0) {
                topUpTimer = vertx.setTimer(TOP_UP_DELAY_MS, id -> {
                    topUpTimer = -1;
                    topUpDue = true;
                    pump();
                });
            }
            return;
        }
        topUpDue = false;
        // Shards whose earliest job is due within claim-ahead, though not within the lead yet, are claimed from too:
        // their claims go out together with these, so that shards are claimed in rounds rather than each on its own.
        List<Integer> along = heldRoom > 0 ? aheadShards(now + leadMs, now + aheadMs) : List.of();
        int share = (free + due - 1) / due;
        boolean oneShard = busy && share < goodBatch;
        int claims = (oneShard ? 1 : due) + along.size();
        int heldShare = (heldRoom + claims - 1) / claims;
        if (oneShard) {
            claim(nextDueShard(now, leadMs), Math.min(settings.batchSize(), free), aheadMs, heldShare);
        } else {
            for (; due > 0 && free > 0; due--) {
                int limit = Math.min(settings.batchSize(), Math.min(share, free));
                claim(nextDueShard(now, leadMs), limit, aheadMs, heldShare);
                free -= limit;
            }
        }
        for (int shard : along) {
            claim(shard, 0, aheadMs, heldShare);
        }
        if (store.cluster()) {
            // A claim of this round may take long (its master does not answer): meanwhile the shards of the other
            // masters keep a timer for their earliest known job, rather than wait for the round to be back. (With one
            // server, what holds up one claim holds up all; and the timer would split the rounds of a busy queue into
            // more, smaller claims: W1 lost a quarter of its rate so.)
            armWakeTimer(leadMs, now);
        }
    }

    /**
     * The shards, with no claim under way, whose earliest job is due after {@code after} and by {@code by} and may be
     * claimed ahead (not a retry). UNKNOWN and NOTHING fall outside any such range.
     */
    private List<Integer> aheadShards(long after, long by) {
        List<Integer> shards = new ArrayList<>();
        for (int shard = 0; shard < nextDue.length; shard++) {
            long next = nextDue[shard];
            if (!claiming[shard] && !dueOnly[shard] && next > after && next <= by) {
                shards.add(shard);
            }
        }
        return shards;
    }

    /** When to claim from a shard: {@code leadMs} before its earliest job is due, unless that job is not for ahead. */
    private long claimFrom(int shard, long leadMs) {
        long next = nextDue[shard];
        return dueOnly[shard] || next == UNKNOWN || next == NOTHING ? next : next - leadMs;
    }

    /**
     * The most jobs claimed but not started yet (held until due, or due and waiting for a handler) while claiming
     * ahead: as many as the handlers get through within {@code claim-ahead}, so that a worker holds a stretch of jobs
     * its handlers keep up with and no more, from {@value #MIN_HELD_BATCHES} batches (also while that is unknown) to
     * {@value #MAX_HELD_BATCHES}.
     */
    private int holdLimit() {
        double perClaimAhead = handledWithin(settings.claimAhead().toMillis());
        int batch = settings.batchSize();
        return (int) Math.max(MIN_HELD_BATCHES * batch, Math.min(MAX_HELD_BATCHES * batch, perClaimAhead));
    }

    /**
     * The jobs the handlers finish during one claim round trip, at most {@value #AHEAD_BATCHES} batches (one to work
     * through while the next is claimed); none while that is unknown.
     */
    private int claimAhead() {
        return (int) Math.min(AHEAD_BATCHES * settings.batchSize(), handledWithin(claimRoundTripMs));
    }

    /** The jobs the handlers get through within {@code ms}, by their average time so far; 0 while that is unknown. */
    private double handledWithin(double ms) {
        return Double.isNaN(meanHandlerMs) ? 0 : settings.concurrency() * ms / Math.max(meanHandlerMs, 0.001);
    }

    /**
     * Blocking handlers: one runner per job handed over while their time is unknown or long, else as many as keep
     * the jobs handed over to about a millisecond of work each.
     */
    private int runnersWanted() {
        if (Double.isNaN(meanHandlerMs)) {
            return active();
        }
        return (int) Math.ceil(active() * meanHandlerMs / RUNNER_WORK_MS);
    }

    private static double average(double average, double sample) {
        return Double.isNaN(average) ? sample : average + (sample - average) / 16;
    }

    /**
     * Adds a claim from {@code shard} to the round that {@link #pump()} sends. It takes at most {@code limit} jobs due
     * now ({@code limit} is at most {@code batch-size}) and at most a batch of jobs ahead of their due time, so that
     * a stretch of a busy shard comes in several claims; together no more than one call may carry for a shard
     * ({@link JobStore#MOST_PER_SHARD}).
     */
    private void claim(int shard, int limit, long aheadMs, int aheadLimit) {
        claiming[shard] = true;
        claimsUnderWay++;
        reserved += limit;
        int ahead = Math.min(Math.min(aheadLimit, settings.batchSize()), JobStore.MOST_PER_SHARD - limit);
        aheadReserved += ahead;
        round.add(new ClaimRequest(shard, limit, aheadMs, ahead, takeAcks(shard)));
    }

    /** A shard in the failed calls the workers share: its first key, one for each queue and shard. */
    private Object part(int shard) {
        return keys.shard(shard).get(0);
    }

    private void claimAnswered(ClaimRequest request, long sentAt, long sentNanos, AsyncResult<ClaimBatch> ar) {
        int shard = request.shard();
        claimRoundTripMs = average(claimRoundTripMs, (System.nanoTime() - sentNanos) / 1e6);
        claiming[shard] = false;
        claimsUnderWay--;
        reserved -= request.limit();
        aheadReserved -= request.aheadLimit();
        Set<String> revoked = revokedDuringClaim.remove(shard);
        if (ar.failed()) {
            failedCalls.failed(part(shard), ar.cause(),
                    "Claiming due jobs of queue " + keys.queue() + " failed; trying again in "
                            + REDIS_FAILURE_PAUSE_MS + " ms");
            request.acks().forEach(ack -> ackAgain(shard, ack));
            nextDue[shard] = redisNow() + REDIS_FAILURE_PAUSE_MS;
            wokenDuringClaim[shard] = NOTHING;
        } else {
            failedCalls.succeeded(part(shard));
            acksUnwritten -= request.acks().size(); // written with the claim
            // The claim's lease, counted from when it was sent: it ends no earlier in Redis.
            long leaseEndNanos = sentNanos + (request.aheadMs() + settings.lease().toMillis()) * 1_000_000;
            claimed(request, ar.result(), sentAt, leaseEndNanos, revoked == null ? Set.of() : revoked);
        }
        checkDrained();
    }

    private int nextDueShard(long now, long leadMs) {
        for (int i = 0; i < nextDue.length; i++) {
            int shard = (shardCursor + i) % nextDue.length;
            if (claimFrom(shard, leadMs) <= now && !claiming[shard]) {
                shardCursor = shard + 1;
                return shard;
            }
        }
        throw new IllegalStateException("no due shard");
    }

    /**
     * Sleeps until the next full look, or until the earliest job of a shard not being claimed is {@code leadMs} from
     * due, after {@code now} (those due by then are being claimed, or wait for free handlers), unless the timer is
     * armed for that time or earlier.
     */
    private void armWakeTimer(long leadMs, long now) {
        long target = wakeTarget(leadMs, now);
        if (wakeTimer != null) {
            if (wakeAt <= target) {
                return;
            }
            wakeTimer.cancel(false);
        }
        wakeAt = target;
        wakeTimer = dueTimer.schedule(context, Math.max(0, target * 1_000 - redisNowMicros()), () -> {
            // A timer cancelled as it fired may still arrive: only the one armed for wakeAt counts.
            if (wakeAt == target) {
                wakeTimer = null;
                wakeAt = NOTHING;
                pump();
            }
        });
    }

    private long wakeTarget(long leadMs, long now) {
        long target = nextFullCheck;
        for (int shard = 0; shard < nextDue.length; shard++) {
            long at = claimFrom(shard, leadMs);
            if (!claiming[shard] && at > now) {
                target = Math.min(target, at);
            }
        }
        return target;
    }

    private void claimed(ClaimRequest request, ClaimBatch batch, long sentAt, long leaseEndNanos, Set<String> revoked) {
        int shard = request.shard();
        // Redis ran the script about halfway through the round trip.
        clockOffsetMs = batch.nowMs() - (sentAt + System.currentTimeMillis()) / 2;
        nextDue[shard] = Math.min(batch.nextMs() < 0 ? NOTHING : batch.nextMs(), wokenDuringClaim[shard]);
        dueOnly[shard] = nextDue[shard] == batch.nextMs() && batch.nextDueOnly();
        wokenDuringClaim[shard] = NOTHING;
        batch.buried().forEach(job -> buriedAfterLease(shard, job));
        long redisMicros = store.redisClockAtLeast(batch);
        if (stopped) {
            List<String[]> claims = new ArrayList<>();
            for (Claimed job : batch.jobs()) {
                claims.add(new String[] { job.id(), job.token() });
            }
            release(shard, claims);
            return;
        }
        for (Claimed job : batch.jobs()) {
            if (revoked.contains(job.token())) {
                continue;
            }
            Delivery delivery = new Delivery(keys.queue(), shard, job, leaseEndNanos);
            if (job.cron() == null) {
                run(delivery, redisMicros);
                continue;
            }
            OccurrencePlanner.Plan plan;
            try {
                plan = planner.plan(job.cron(), job.dueMs(), job.attempt(), settings.maxAttempts(), batch.nowMs());
            } catch (RuntimeException e) {
                // An unreadable schedule (written by hand, say): the job is handled as a plain one.
                LOG.warnf("Recurring %s has an unreadable schedule '%s': %s", delivery, job.cron(), e.getMessage());
                run(delivery, redisMicros);
                continue;
            }
            delivery.rearmAt(plan.nextMs());
            if (plan.run()) {
                run(delivery, redisMicros);
            } else if (plan.givenUp() != null) {
                LOG.warnf("Recurring %s: %s", delivery, plan.givenUp());
                giveUp(delivery, plan.givenUp(), false);
            } else {
                LOG.debugf("Skipping occurrence %d of recurring %s", job.dueMs(), delivery);
                ack(shard, new Ack(job.id(), job.token(), plan.nextMs()));
            }
        }
    }

    /**
     * Tells of a job that this worker's claim moved to the dead letters, as a failed last attempt's move is told: its
     * lease had run out on its last attempt (its instance died or stalled, or its handler kept it past the lease).
     */
    private void buriedAfterLease(int shard, Buried job) {
        Delivery delivery = new Delivery(keys.queue(), shard,
                new Claimed(job.id(), job.token(), job.attempt(), job.dueMs(), new byte[0], null), 0);
        delivery.loseLease();
        IllegalStateException failure = new IllegalStateException(
                "lease expired on attempt " + job.attempt() + " of " + settings.maxAttempts());
        LOG.warnf("%s moved to the dead letters: %s", delivery, failure.getMessage());
        dispatcher.listener().deadLettered(delivery, failure);
    }

    /**
     * Hands a claimed delivery to a handler, at once or, when claimed ahead, at its due time: a timer started now for
     * the due time less {@code redisMicros}, a lower bound of the Redis clock now, cannot fire before the job is due by
     * that clock.
     */
    private void run(Delivery delivery, long redisMicros) {
        String key = key(delivery.shard(), delivery.token());
        running.put(key, delivery);
        long untilDueMicros = delivery.job().dueMs() * 1000 - redisMicros;
        if (untilDueMicros > 0) {
            held.put(key, dueTimer.schedule(context, untilDueMicros, () -> {
                if (held.remove(key) == null) {
                    return; // revoked, or handed back at a stop, as the timer ended
                }
                waiting.add(delivery);
                startWaiting();
                pump();
            }));
            return;
        }
        waiting.add(delivery);
        startWaiting();
    }

    private static String key(int shard, String token) {
        return token + '@' + shard;
    }

    /**
     * A producer ended a claimed job (cancelled, moved or replaced it): it must not start, whether it is held until
     * its due time or waits for a handler. Nothing happens when it is not claimed here, or started already.
     */
    void revoke(int shard, String token) {
        context.runOnContext(v -> {
            if (shard < 0 || shard >= nextDue.length) {
                return;
            }
            Delivery delivery = running.get(key(shard, token));
            if (delivery == null) {
                if (claiming[shard]) {
                    revokedDuringClaim.computeIfAbsent(shard, s -> new HashSet<>()).add(token);
                }
                return;
            }
            if (!dropUnstarted(delivery, "was ended by a producer")) {
                // Started: its handler learns it now rather than at the next renewal, and a success is not taken
                // for one (trials saw JobSucceeded, and the succeeded counter, for jobs cancelled while they ran).
                delivery.endByProducer();
            }
        });
    }

    /** Deliveries handed to a handler: claimed ones neither held nor waiting any more, until they finish. */
    private int active() {
        return running.size() - held.size() - waiting.size();
    }

    private void startWaiting() {
        Map<Integer, List<String[]>> handBack = new LinkedHashMap<>();
        while (active() < settings.concurrency() && !waiting.isEmpty()) {
            Delivery delivery = waiting.poll();
            if (droppedForEndedLease(delivery, System.nanoTime())) {
                // This process was paused past the lease (a long GC, a frozen VM): another worker may run the job.
                addClaim(handBack, delivery);
                continue;
            }
            dispatcher.dispatch(delivery, context, runners, runnersWanted(), clockOffsetMs).onComplete(ar -> {
                finishedQueue.add(new Finished(delivery, ar.cause(), delivery.runningMs()));
                if (finishedTaskPending.compareAndSet(false, true)) {
                    context.runOnContext(v -> takeFinished());
                }
            });
        }
        handBack.forEach(this::release);
    }

    private record Finished(Delivery delivery, Throwable failure, double handlerMs) {
    }

    private void takeFinished() {
        finishedTaskPending.set(false);
        for (Finished f; (f = finishedQueue.poll()) != null;) {
            finished(f.delivery(), f.failure(), f.handlerMs());
        }
        startWaiting();
        checkDrained();
        pump();
    }

    /** Records the outcome of a delivery; the caller starts waiting jobs and pumps. */
    private void finished(Delivery delivery, Throwable failure, double handlerMs) {
        running.remove(key(delivery.shard(), delivery.token()));
        if (delivery.lapsed()) {
            // Checked at dispatch, the lease ended (or was found lost) before the handler's thread took the job up:
            // another worker may have claimed it meanwhile. Handed back, fenced by its token, it runs on a claim of
            // its own.
            lostLeases.lost(delivery + ": its lease ended before its handler started (this process paused past it, its"
                    + " renewals went unanswered, or one found the claim gone); handed back");
            release(delivery.shard(), List.<String[]> of(claimOf(delivery)));
            return;
        }
        meanHandlerMs = average(meanHandlerMs, handlerMs);
        if (delivery.endedByProducer()) {
            // Its job is gone, or another one now: nothing to write (its token would fence it anyway), no retry.
            if (failure == null) {
                LOG.debugf("%s was cancelled or replaced by a producer while it ran: its success is not recorded",
                        delivery);
            } else {
                LOG.warnf("%s failed, and is not retried: a producer cancelled or replaced its job while it ran: %s",
                        delivery, Causes.message(failure));
            }
            dispatcher.listener().failed(delivery, (long) (handlerMs * 1e6),
                    failure != null ? failure : new LostLeaseSuccess(ENDED_BY_PRODUCER));
            return;
        }
        if (failure == null && delivery.leaseLost()) {
            // The handler was told its outcome may not be recorded, and may have stopped early on it: its success
            // does not remove the job, which runs again, as after a failure (fenced: a job another delivery now
            // holds, or one cancelled or replaced, is left alone).
            failure = new LostLeaseSuccess();
        }
        Claimed job = delivery.job();
        JobListener listener = dispatcher.listener();
        if (failure instanceof LostLeaseSuccess && delivery.rearmAt() == null
                && job.attempt() >= settings.maxAttempts()) {
            // On its last attempt, a retry would bury a job whose handler did not fail: it is handed back instead,
            // fenced, and runs again at once without the attempt counting.
            listener.failed(delivery, (long) (handlerMs * 1e6), failure);
            lostLeases.lost(delivery + " lost its lease while it ran, on its last attempt: handed back to run again");
            release(delivery.shard(), List.<String[]> of(claimOf(delivery)));
            return;
        }
        if (failure == null) {
            listener.succeeded(delivery, (long) (handlerMs * 1e6));
            ack(delivery.shard(), new Ack(job.id(), job.token(), delivery.rearmAt()));
            if (stopped) {
                sendAcks(delivery.shard());
            }
        } else {
            listener.failed(delivery, (long) (handlerMs * 1e6), failure);
            recordFailure(delivery, failure, retryCannotHelp(failure), backoffMs(job.attempt()), false);
        }
    }

    /** An unreadable payload, or a handler that said so: the job goes to the dead letters without a retry. */
    private static boolean retryCannotHelp(Throwable failure) {
        return failure instanceof HandlerDispatcher.UnreadablePayloadException
                || Causes.find(failure, NonRetryableJobException.class) != null;
    }

    /** What a handler that returned normally after its delivery lost its lease is taken to have done. */
    private static final class LostLeaseSuccess extends IllegalStateException {
        LostLeaseSuccess() {
            this("the delivery lost its lease while it ran (JobContext.leaseLost()): its success is not recorded");
        }

        LostLeaseSuccess(String message) {
            super(message);
        }
    }

    private static final String ENDED_BY_PRODUCER = "a producer cancelled or replaced the job while its handler ran"
            + " (JobContext.leaseLost()): its success is not recorded";

    /**
     * Writes the failure of a delivery: a retry, or a move to the dead letters (at once when {@code deadAtOnce}).
     * {@code resent}: an earlier write of it failed, and Redis may have carried that one out (only its answer was lost,
     * say).
     */
    private void recordFailure(Delivery delivery, Throwable failure, boolean deadAtOnce, long delay, boolean resent) {
        Claimed job = delivery.job();
        String error = describe(failure);
        writeFenced(delivery.shard(), store.retry(keys, delivery.shard(), job.id(), job.token(), delay, error, deadAtOnce,
                delivery.rearmAt(), settings), "record the failure of " + delivery,
                e -> LOG.warnf(e, "Could not record the failure of %s after the stop; it will run again after its lease",
                        delivery),
                () -> recordFailure(delivery, failure, deadAtOnce, delay, true),
                outcome -> judge(delivery, error, outcome, resent,
                        judged -> failureRecorded(delivery, failure, delay, judged)));
    }

    /**
     * Hands on the outcome of a failure's write; when it was written again and found its claim gone, that of the
     * earlier write instead, as the job shows it: the fencing cannot tell that write carried out from another worker's
     * claim.
     */
    private void judge(Delivery delivery, String error, RetryOutcome outcome, boolean resent,
            Consumer<RetryOutcome> judged) {
        if (outcome != RetryOutcome.STALE || !resent) {
            judged.accept(outcome);
            return;
        }
        writesUnderWay++; // told before a graceful stop ends
        store.find(keys.queue(), delivery.job().id()).onComplete(found -> context.runOnContext(v -> {
            judged.accept(found.succeeded() ? earlierWrite(found.result().orElse(null), delivery, error)
                    : RetryOutcome.STALE);
            writesUnderWay--;
            checkDrained();
        }));
    }

    /** What an earlier write of a delivery's failure left, judged from its job now: STALE when none of it shows. */
    private static RetryOutcome earlierWrite(JobInfo now, Delivery delivery, String error) {
        if (now == null || !error.equals(now.lastError())) {
            return RetryOutcome.STALE;
        }
        int attempts = delivery.job().attempt();
        return switch (now.state()) {
            case DEAD -> now.attempts() == attempts ? RetryOutcome.DEAD : RetryOutcome.STALE;
            // A retried job keeps its attempts until it is claimed again; an armed occurrence starts at none.
            case PENDING -> now.attempts() == attempts ? RetryOutcome.RETRIED
                    : now.attempts() == 0 && delivery.rearmAt() != null ? RetryOutcome.REARMED : RetryOutcome.STALE;
            case RUNNING -> RetryOutcome.STALE;
        };
    }

    private void failureRecorded(Delivery delivery, Throwable failure, long delay, RetryOutcome outcome) {
        JobListener listener = dispatcher.listener();
        switch (outcome) {
            case RETRIED -> {
                if (failure instanceof LostLeaseSuccess) {
                    lostLeases.lost(delivery + " lost its lease while it ran: it runs again in " + delay + " ms");
                } else {
                    LOG.warnf("%s failed, retrying in %d ms: %s", delivery, delay, describe(failure));
                }
                listener.retried(delivery, failure);
            }
            case DEAD -> {
                if (failure instanceof HandlerDispatcher.UnreadablePayloadException) {
                    // Its message holds Jackson's: a trace of the dispatcher's frames, per job of a backlog of payloads
                    // an upgrade can no longer read, would flood the log.
                    LOG.warnf("%s failed and moved to the dead letters: %s", delivery, failure.getMessage());
                } else {
                    LOG.warnf(failure, "%s failed and moved to the dead letters", delivery);
                }
                listener.deadLettered(delivery, failure);
            }
            case STALE -> LOG.debugf("%s failed after its claim was lost", delivery);
            case REARMED -> {
                if (failure instanceof LostLeaseSuccess) {
                    lostLeases.lost(delivery + " lost its lease while it ran; its next occurrence is armed");
                } else {
                    LOG.warnf("%s failed; its next occurrence is armed: %s", delivery, describe(failure));
                }
            }
        }
    }

    /**
     * Writes that a claimed occurrence is given up without running, after its leases kept running out: its next
     * occurrence is armed, with the reason as its last error. {@code resent} as for {@link #recordFailure}.
     */
    private void giveUp(Delivery delivery, String reason, boolean resent) {
        Claimed job = delivery.job();
        writeFenced(delivery.shard(), store.retry(keys, delivery.shard(), job.id(), job.token(), 0, reason, true,
                delivery.rearmAt(), settings), "record the given-up occurrence of " + delivery,
                e -> LOG.warnf(e, "Could not record the given-up occurrence of %s after the stop; it is claimed again"
                        + " after its lease", delivery),
                () -> giveUp(delivery, reason, true),
                outcome -> judge(delivery, reason, outcome, resent, judged -> {
                    if (judged == RetryOutcome.DEAD) {
                        // The last occurrence of a schedule that has ended: it stays as a dead letter.
                        LOG.warnf("%s moved to the dead letters: %s", delivery, reason);
                        dispatcher.listener().deadLettered(delivery, new IllegalStateException(reason));
                    }
                }));
    }

    private void ack(int shard, Ack ack) {
        acksUnwritten++;
        ackAgain(shard, ack);
    }

    /** Lets an ack wait for the next claim of its shard, or for a call of its own (again, after a failed call). */
    private void ackAgain(int shard, Ack ack) {
        List<Ack> acks = acksToSend.computeIfAbsent(shard, s -> new ArrayList<>());
        acks.add(ack);
        if (acks.size() >= JobStore.MOST_PER_SHARD) {
            sendAcks(shard); // as many as one call may carry: they wait no longer
            return;
        }
        if (ackTimers[shard] < 0) {
            ackTimers[shard] = vertx.setTimer(ackWaitMs(shard), id -> {
                ackTimers[shard] = -1;
                sendAcks(shard);
            });
        }
    }

    /**
     * How long the acks of a shard wait: for its next claim, which carries them, when one is due within
     * {@link #ackDelayMs}; otherwise (a queue that ran dry, say) only for those of the handlers finishing about then.
     */
    private long ackWaitMs(int shard) {
        long claimAt = claimFrom(shard, settings.claimAhead().toMillis() / LEAD_PER_CLAIM_AHEAD);
        return claimAt != NOTHING && claimAt <= redisNow() + ackDelayMs ? ackDelayMs : ACK_GATHER_MS;
    }

    private List<Ack> takeAcks(int shard) {
        if (ackTimers[shard] >= 0) {
            vertx.cancelTimer(ackTimers[shard]);
            ackTimers[shard] = -1;
        }
        List<Ack> acks = acksToSend.remove(shard);
        return acks == null ? List.of() : acks;
    }

    private void sendAcks(int shard) {
        List<Ack> acks = takeAcks(shard);
        if (acks.isEmpty()) {
            return;
        }
        writeFenced(shard, store.ack(keys, shard, acks), "acknowledge " + acks.size() + " jobs of queue " + keys.queue(),
                // The stop said these were not written, or that their handlers still ran.
                e -> LOG.debugf(e, "Could not acknowledge %d jobs of queue %s after the stop", acks.size(),
                        keys.queue()),
                () -> acks.forEach(ack -> ackAgain(shard, ack)),
                matched -> acksUnwritten -= acks.size());
    }

    /**
     * Sends a write that tokens fence (an ack, a retry), so that sending it again is safe: dropped, its jobs would wait
     * for the lease of their claim, which the claim's other jobs renew as long as their handlers run, and a
     * successful one would run again. It counts as a write under way until Redis took it; after a failure, {@code again}
     * runs {@value #REDIS_FAILURE_PAUSE_MS} ms later, unless the stop gave up the writes meanwhile (a timer would outlive
     * the stop: dev mode keeps Vert.x).
     *
     * @param what what the write does, for the log
     * @param afterStop logs a failure once the stop gave up the writes
     * @param taken what to do with Redis's answer
     */
    private <T> void writeFenced(int shard, Future<T> write, String what, Consumer<Throwable> afterStop, Runnable again,
            Consumer<T> taken) {
        writesUnderWay++;
        write.onComplete(ar -> context.runOnContext(v -> {
            if (ar.succeeded()) {
                failedCalls.succeeded(part(shard));
                taken.accept(ar.result());
                writesUnderWay--;
                checkDrained();
                return;
            }
            if (abandoned) {
                afterStop.accept(ar.cause());
                writesUnderWay--;
                return;
            }
            failedCalls.failed(part(shard), ar.cause(),
                    "Could not " + what + "; trying again in " + REDIS_FAILURE_PAUSE_MS + " ms");
            vertx.setTimer(REDIS_FAILURE_PAUSE_MS, id -> {
                writesUnderWay--;
                if (!abandoned) {
                    again.run();
                }
            });
        }));
    }

    /** Counts a write to Redis until it is done, so that a graceful stop waits for it. */
    private <T> Future<T> track(Future<T> write) {
        writesUnderWay++;
        write.onComplete(ar -> context.runOnContext(v -> {
            writesUnderWay--;
            checkDrained();
        }));
        return write;
    }

    private void checkDrained() {
        if (drained != null && running.isEmpty() && claimsUnderWay == 0 && writesUnderWay == 0 && acksToSend.isEmpty()) {
            drained.tryComplete();
        }
    }

    /** Exponential backoff with jitter: between half and all of initial * 2^(attempt - 1), capped at max. */
    long backoffMs(int attempt) {
        long initial = settings.backoffInitial().toMillis();
        long max = settings.backoffMax().toMillis();
        long delay = (long) Math.min(max, initial * Math.pow(2, attempt - 1));
        return delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
    }

    /**
     * The error recorded with a job: the failure's class and message, and those of a {@code NonRetryableJobException}
     * it wraps, which says why the job was not retried.
     */
    private static String describe(Throwable failure) {
        String text = classAndMessage(failure);
        NonRetryableJobException reason = Causes.find(failure, NonRetryableJobException.class);
        if (reason != null && reason != failure) {
            text += " (not retried: " + classAndMessage(reason) + ")";
        }
        return text.length() > MAX_ERROR_LENGTH ? text.substring(0, MAX_ERROR_LENGTH) : text;
    }

    private static String classAndMessage(Throwable failure) {
        return failure.getClass().getName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
    }

    private void renew() {
        if (running.isEmpty()) {
            return;
        }
        // A lease that ran out with no renewal answered (Redis unreachable, say) may have gone to another worker.
        // A job dropped so is handed back, fenced by its token: Redis may still hold its claim, whose one lease the
        // renewals of the claim's other jobs keep alive while their handlers run here, and no one would run it.
        long now = System.nanoTime();
        Map<Integer, List<String[]>> handBack = new LinkedHashMap<>();
        for (Delivery d : List.copyOf(running.values())) {
            if (droppedForEndedLease(d, now)) {
                addClaim(handBack, d);
            }
        }
        handBack.forEach(this::release);
        if (running.isEmpty()) {
            return;
        }
        Map<Integer, List<Delivery>> byShard = new LinkedHashMap<>();
        for (Delivery d : running.values()) {
            byShard.computeIfAbsent(d.shard(), s -> new ArrayList<>()).add(d);
        }
        byShard.forEach((shard, all) -> {
            // In calls of at most what one may carry for a shard.
            for (int from = 0; from < all.size(); from += JobStore.MOST_PER_SHARD) {
                renew(shard, all.subList(from, Math.min(all.size(), from + JobStore.MOST_PER_SHARD)));
            }
        });
    }

    /**
     * Whether the delivery's lease ran out with no renewal answered and it had not started: it is dropped, to be
     * handed back by the caller. One that started only learns that its lease is lost.
     */
    private boolean droppedForEndedLease(Delivery d, long nowNanos) {
        if (d.leaseLost() || !d.leaseEndedBy(nowNanos)) {
            return false;
        }
        d.loseLease();
        return dropUnstarted(d, "could not renew its lease in time");
    }

    /**
     * Renews the leases of one shard's deliveries. Those whose claim is lost learn it ({@code leaseLost()}); those not
     * started yet never start.
     */
    private void renew(int shard, List<Delivery> deliveries) {
        List<String[]> claims = new ArrayList<>(deliveries.size());
        for (Delivery d : deliveries) {
            claims.add(claimOf(d));
        }
        // Redis runs the renewal after it was sent: the lease it sets ends no earlier than this.
        long leaseEndNanos = System.nanoTime() + settings.lease().toNanos();
        store.renew(keys, shard, claims, settings.lease()).onComplete(ar -> context.runOnContext(v -> {
            if (ar.failed()) {
                failedCalls.failed(part(shard), ar.cause(), "Could not renew the leases of queue " + keys.queue());
                return;
            }
            failedCalls.succeeded(part(shard));
            Set<String> lost = new HashSet<>(ar.result());
            for (Delivery d : deliveries) {
                if (lost.contains(d.token())) {
                    d.loseLease();
                    dropUnstarted(d, "lost its claim before it started");
                } else {
                    d.renewed(leaseEndNanos);
                }
            }
        }));
    }

    /**
     * Drops a delivery that has not started, held or waiting: a producer ended its job (revoked on the wake
     * channel), or Redis no longer knows its claim (the revoke was missed while the wake subscription was down, or
     * the job was claimed again), or its lease ran out unrenewed. Returns whether it was dropped (not started).
     */
    private boolean dropUnstarted(Delivery d, String why) {
        if (!d.handBack()) {
            return false; // started: its handler sees leaseLost(), and its ack or retry fails on the token
        }
        String key = key(d.shard(), d.token());
        ScheduledFuture<?> timer = held.remove(key);
        if (timer != null) {
            timer.cancel(false);
        }
        waiting.remove(d);
        running.remove(key);
        LOG.debugf("%s %s; it does not start", d, why);
        checkDrained();
        pump();
        return true;
    }

    /**
     * Stops claiming, hands back the claimed jobs whose handler has not started, and completes when the running
     * handlers have finished.
     */
    Future<Void> stop() {
        Promise<Void> done = Promise.promise();
        context.runOnContext(v -> {
            stopped = true;
            if (wakeTimer != null) {
                wakeTimer.cancel(false);
            }
            vertx.cancelTimer(topUpTimer);
            held.values().forEach(timer -> timer.cancel(false));
            held.clear();
            Map<Integer, List<String[]>> handBack = new LinkedHashMap<>();
            running.values().removeIf(d -> {
                if (d.handBack()) {
                    addClaim(handBack, d);
                    return true;
                }
                return false;
            });
            waiting.clear();
            handBack.forEach(this::release);
            int handedBack = handBack.values().stream().mapToInt(List::size).sum();
            if (handedBack > 0 || !running.isEmpty()) {
                LOG.infof("Stopping the delayed-jobs worker of queue %s: %d claimed jobs not started handed back, %d"
                        + " handlers still running (waiting up to quarkus.delayed-jobs.shutdown-timeout)",
                        keys.queue(), handedBack, running.size());
            }
            new ArrayList<>(acksToSend.keySet()).forEach(this::sendAcks);
            drained = Promise.promise();
            checkDrained();
            // A claim still under way hands its jobs back when it returns, before the drain can complete.
            // Leases are renewed until the last handler finished, so that no other instance runs its job meanwhile.
            drained.future().onComplete(ar -> {
                vertx.cancelTimer(renewTimer);
                done.complete();
            });
        });
        return done.future();
    }

    /**
     * The stop gave up waiting ({@code shutdown-timeout}): the leases of the handlers still running are no longer
     * renewed, so that their jobs run elsewhere once the leases ran out (their {@code leaseLost()} then says so), and
     * acks not written (Redis unreachable) are not sent again, so that no timer of this worker outlives the stop.
     * Completes once it said what it left behind.
     */
    Future<Void> abandon(Duration shutdownTimeout) {
        Promise<Void> said = Promise.promise();
        context.runOnContext(v -> {
            abandoned = true;
            vertx.cancelTimer(renewTimer);
            running.values().forEach(Delivery::stopRenewing);
            // Acks of handlers that finished meanwhile go now; one that fails is not sent again.
            new ArrayList<>(acksToSend.keySet()).forEach(this::sendAcks);
            if (!running.isEmpty()) {
                LOG.warnf("%d delayed-jobs handlers of queue %s still running after quarkus.delayed-jobs.shutdown-timeout"
                        + "=%s; their jobs run again elsewhere once their lease ends (those not cancelled meanwhile)",
                        running.size(), keys.queue(), shutdownTimeout);
            }
            // Handlers that finished, but whose ack Redis did not take: as for a crashed instance, their jobs are
            // delivered again.
            if (acksUnwritten > 0) {
                LOG.warnf("%d finished jobs of queue %s not acknowledged within quarkus.delayed-jobs.shutdown-timeout=%s"
                        + " (Redis unreachable?); unless their acks still land, they run again once their lease ends",
                        acksUnwritten, keys.queue(), shutdownTimeout);
            }
            said.complete();
        });
        return said.future();
    }

    /** Adds a delivery's claim to those of its shard to hand back in one call. */
    private static void addClaim(Map<Integer, List<String[]>> byShard, Delivery d) {
        byShard.computeIfAbsent(d.shard(), s -> new ArrayList<>()).add(claimOf(d));
    }

    /** A delivery's claim as renew.lua and release.lua take it: its job id and token. */
    private static String[] claimOf(Delivery d) {
        return new String[] { d.job().id(), d.token() };
    }

    private void release(int shard, List<String[]> claims) {
        if (claims.isEmpty()) {
            return;
        }
        track(store.release(keys, shard, claims)).onComplete(ar -> {
            if (ar.failed()) {
                LOG.warnf(ar.cause(), "Could not hand back %d jobs of queue %s; they run again after their lease",
                        claims.size(), keys.queue());
            } else {
                LOG.debugf("Handed back %d jobs of queue %s", ar.result(), keys.queue());
            }
        });
    }
}
