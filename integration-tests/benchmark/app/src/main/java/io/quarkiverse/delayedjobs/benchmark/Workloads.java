package io.quarkiverse.delayedjobs.benchmark;

import static io.quarkiverse.delayedjobs.benchmark.measure.Phases.await;
import static io.quarkiverse.delayedjobs.benchmark.measure.Phases.issue;
import static io.quarkiverse.delayedjobs.benchmark.measure.Phases.pause;
import static io.quarkiverse.delayedjobs.benchmark.measure.Phases.sleepUntil;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.benchmark.measure.Counters;
import io.quarkiverse.delayedjobs.benchmark.measure.Results;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.redis.Script;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Request;

/**
 * The workloads of SPEC §6 against the extension, through its public API. Every wait is bounded by a deadline and
 * every loop by a count.
 */
final class Workloads {

    private static final Logger LOG = Logger.getLogger("bench");
    /** W1 writes to a queue no instance handles, so that nothing but scheduling is measured. */
    static final String ENQUEUE_QUEUE = "bench-enqueue";
    /** The warm-up's jobs of W1's kind go to a queue of their own that no instance handles. */
    private static final String WARM_UP_QUEUE = "bench-warm-up";
    private static final int WARM_UP_ROUNDS = 2;
    private static final Duration SETTLE = Duration.ofMillis(300);
    private static final int LOADER_IDS_PER_CALL = 1000;
    private static final long DRAIN_SPREAD_MS = 100;
    /**
     * Drains at each W6 size; the size's figure is the median one. A drain of 20,000 jobs takes under a second, so one
     * slow moment of the shared machine decided a size's figure when there was one drain per size.
     */
    private static final int SCALE_DRAINS = 3;
    /** Members looked up per call of settle.lua: Lua unpacks at most about 8,000 values at once. */
    private static final int SETTLE_CHUNK = 5000;
    /** The index hashes of a shard, {@code ix:0} to {@code ix:255} (docs: protocol, keys). */
    private static final int INDEX_HASHES_PER_SHARD = 256;

    /** W6's pending jobs are due a day from now, spread over an hour: far enough to stay pending. */
    private static final long SCALE_PENDING_DELAY_MS = Duration.ofDays(1).toMillis();

    private final ReactiveDelayedScheduler reactive;
    private final DelayedScheduler scheduler;
    private final Tally tally;
    private final RedisMeter meter;
    private final Results out;
    private final ObjectMapper mapper;
    private final Options options;
    private final String keyPrefix;
    private final int shards;
    private double enqueueRate;

    Workloads(ReactiveDelayedScheduler reactive, DelayedScheduler scheduler, Tally tally, RedisMeter meter,
            Results out, ObjectMapper mapper, Options options, String keyPrefix, int shards) {
        this.reactive = reactive;
        this.scheduler = scheduler;
        this.tally = tally;
        this.meter = meter;
        this.out = out;
        this.mapper = mapper;
        this.options = options;
        this.keyPrefix = keyPrefix;
        this.shards = shards;
    }

    /**
     * Unrecorded: {@value #WARM_UP_ROUNDS} rounds, each scheduling jobs due at once and running them, after scheduling
     * jobs of W1's kind (due over the next 60 s, to a queue without handler, then deleted) when {@code enqueueToo}, so
     * that the JIT has compiled the schedule, claim and handler paths before anything is measured: with jobs due at
     * once alone, it compiled W1's path during W1 (FINDINGS, twenty-fifth round). Every system of the benchmark gets
     * the same warm-up.
     */
    void warmUp(boolean enqueueToo) {
        int n = options.jobs();
        for (int round = 0; round < WARM_UP_ROUNDS; round++) {
            if (enqueueToo) {
                scheduleOverNextMinute(WARM_UP_QUEUE, "warm-up-", n);
                meter.deleteKeys(keyPrefix + ":{" + WARM_UP_QUEUE + "*");
            }
            tally.reset(n, false);
            issue(n, options.window(), i -> reactive.schedule(BenchHandler.QUEUE, "warm-up-" + i,
                    BenchPayload.of(i, System.currentTimeMillis()), Duration.ZERO).subscribeAsCompletionStage());
            await("all " + n + " warm-up jobs started", () -> tally.distinct() >= n);
            await("queue " + BenchHandler.QUEUE + " drained",
                    () -> scheduler.stats(BenchHandler.QUEUE).running() == 0);
        }
    }

    /** W1: schedules jobs due over the next 60 s into a queue without handler. */
    void enqueue() {
        int n = options.jobs();
        meter.deleteKeys(keyPrefix + ":{" + ENQUEUE_QUEUE + "*");
        pause(SETTLE);
        Counters before = meter.counters();
        long t0 = System.nanoTime();
        scheduleOverNextMinute(ENQUEUE_QUEUE, "w1-", n);
        long wall = System.nanoTime() - t0;
        Counters after = meter.counters();
        enqueueRate = n / (wall / 1e9);
        out.phase("W1", n, wall, before, after, Map.of("window", options.window()));
        meter.deleteKeys(keyPrefix + ":{" + ENQUEUE_QUEUE + "*");
    }

    /**
     * Schedules W1's kind of jobs: {@code n} due over the minute after the next one to {@code queue}, ids
     * {@code idPrefix + i}: none comes due while they are scheduled, which would make a system that moves due jobs
     * without a worker (Redisson's delayed queue) do work the others do not.
     */
    private void scheduleOverNextMinute(String queue, String idPrefix, int n) {
        long start = System.currentTimeMillis() + 60_000L;
        issue(n, options.window(), i -> {
            long due = start + 60_000L * i / n;
            return reactive.schedule(queue, idPrefix + i, BenchPayload.of(i, due), Instant.ofEpochMilli(due))
                    .subscribeAsCompletionStage();
        });
    }

    /**
     * W2 and W4: schedules the jobs all due at one moment a little ahead, measures the memory they take while pending,
     * then the time from that moment until the last one is acknowledged.
     */
    void drain() {
        int n = options.jobs();
        Map<String, Object> load = new LinkedHashMap<>();
        Map<String, Object> result = drainBatch("w2-", n, load);
        long bytes = (long) load.get("usedMemoryDelta");
        out.write("W4", Map.of("jobs", n, "usedMemoryDelta", bytes, "bytesPerJob", (double) bytes / n));
        out.write("W2", result);
    }

    /**
     * Schedules {@code n} jobs due within {@value #DRAIN_SPREAD_MS} ms from one moment, in the order they are
     * scheduled, through the public API, and measures their drain from that moment. The moment is chosen from the
     * enqueue rate so that loading ends before it. The due times rise with the job number as they would for jobs
     * scheduled one after the other (equal due times would make Redisson scan its whole list for each job).
     *
     * @param load filled with the figures of the loading phase
     * @return the fields of the drain result
     */
    private Map<String, Object> drainBatch(String idPrefix, int n, Map<String, Object> load) {
        double rate = enqueueRate > 0 ? enqueueRate : 5_000;
        long marginMs = (long) (1.5 * n / rate * 1000) + 2_000;
        tally.reset(n, false);
        pause(SETTLE);
        Counters empty = meter.counters();
        long loadStart = System.currentTimeMillis();
        long first = loadStart + marginMs;
        long last = first + DRAIN_SPREAD_MS - 1;
        issue(n, options.window(), i -> {
            long due = first + DRAIN_SPREAD_MS * i / n;
            return reactive.schedule(BenchHandler.QUEUE, idPrefix + i, BenchPayload.of(i, due), Instant.ofEpochMilli(due))
                    .subscribeAsCompletionStage();
        });
        long loadEnd = System.currentTimeMillis();
        pause(SETTLE);
        Counters loaded = meter.counters();
        load.put("usedMemoryDelta", loaded.usedMemory() - empty.usedMemory());
        load.put("loadRate", n / ((loadEnd - loadStart) / 1e3));
        boolean overran = System.currentTimeMillis() + 100 > first;
        if (overran) {
            LOG.warnf("Loading %d jobs took %d ms, past their due time: the drain overlaps the load", n,
                    loadEnd - loadStart);
        }
        sleepUntil(first - 50);
        Counters before = meter.counters();
        sleepUntil(first);
        long t0 = System.nanoTime();
        await("all " + n + " handlers started", () -> tally.distinct() >= n);
        long handlersNanos = System.nanoTime() - t0;
        await("queue " + BenchHandler.QUEUE + " drained", () -> {
            QueueStats stats = scheduler.stats(BenchHandler.QUEUE);
            return stats.running() == 0 && stats.nextDueAt().map(next -> next.toEpochMilli() > last).orElse(true);
        });
        long wall = System.nanoTime() - t0;
        Counters after = meter.counters();
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("lastHandlerMs", handlersNanos / 1e6);
        extra.put("loadOverran", overran);
        extra.put("loadRate", load.get("loadRate"));
        extra.put("duplicates", tally.duplicates());
        return Results.phaseFields(n, wall, before, after, extra);
    }

    /**
     * W3: a steady stream of jobs each due a fixed delay after it was scheduled; how late does each start? Recorded
     * as {@code workload}: W3, or W3L when this instance runs with a {@code schedule-linger}.
     */
    void lateness(String workload) {
        int perSecond = options.latenessRate();
        int n = perSecond * options.latenessSeconds();
        Duration delay = Duration.ofSeconds(2);
        tally.reset(n, true);
        pause(SETTLE);
        Counters before = meter.counters();
        long t0 = System.nanoTime();
        long startMs = System.currentTimeMillis();
        Semaphore inFlight = new Semaphore(perSecond);
        AtomicLong failures = new AtomicLong();
        long deadline = t0 + Duration.ofSeconds(options.latenessSeconds() + 10L).toNanos();
        int sent = 0;
        while (sent < n && System.nanoTime() < deadline) {
            long target = Math.min(n, (System.nanoTime() - t0) / 1_000_000L * perSecond / 1000);
            while (sent < target && inFlight.tryAcquire()) {
                int seq = sent++;
                reactive.schedule(BenchHandler.QUEUE, "w3-" + seq,
                        BenchPayload.of(seq, System.currentTimeMillis() + delay.toMillis()), delay)
                        .subscribe().with(ok -> inFlight.release(), e -> {
                            failures.incrementAndGet();
                            inFlight.release();
                        });
            }
            LockSupport.parkNanos(200_000);
        }
        int scheduled = sent;
        await("all " + scheduled + " lateness jobs started", () -> tally.distinct() >= scheduled,
                delay.plusSeconds(15));
        await("queue " + BenchHandler.QUEUE + " drained",
                () -> scheduler.stats(BenchHandler.QUEUE).running() == 0, Duration.ofSeconds(15));
        long wall = System.nanoTime() - t0;
        Counters after = meter.counters();
        long[] lateness = tally.sortedLateness();
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("expected", n);
        extra.put("scheduled", scheduled);
        extra.put("scheduleFailures", failures.get());
        extra.put("received", tally.distinct());
        extra.put("duplicates", tally.duplicates());
        extra.put("p50Ms", Results.percentile(lateness, 50) / 1e3);
        extra.put("p99Ms", Results.percentile(lateness, 99) / 1e3);
        extra.put("maxMs", lateness.length == 0 ? 0 : lateness[lateness.length - 1] / 1e3);
        extra.put("minMs", lateness.length == 0 ? 0 : lateness[0] / 1e3);
        long[] shift = tally.sortedDueShift();
        extra.put("dueShiftP50Ms", Results.percentile(shift, 50));
        extra.put("dueShiftP99Ms", Results.percentile(shift, 99));
        extra.put("latest", tally.latest(5, startMs));
        extra.put("scheduleLinger", ConfigProvider.getConfig()
                .getOptionalValue("quarkus.delayed-jobs.schedule-linger", String.class).orElse("0"));
        out.phase(workload, n, wall, before, after, extra);
    }

    /**
     * W6: the claim rate with many pending jobs that are not due. Loads the pending jobs straight into the queue's
     * shards (pipelined script calls, far faster than scheduling them one by one), then drains a batch of due jobs
     * scheduled through the public API, at each size.
     */
    void scale() {
        QueueKeys keys = new QueueKeys(keyPrefix, BenchHandler.QUEUE, shards);
        // Written with the extension's own layout functions, so that the loaded jobs are stored as schedule.lua would.
        String loader = Script.resource(Script.COMMON) + resource("bulk-load.lua");
        String sha = meter.send(Request.cmd(Command.SCRIPT).arg("LOAD").arg(loader)).toString();
        String settleSha = meter.send(Request.cmd(Command.SCRIPT).arg("LOAD").arg(resource("settle.lua"))).toString();
        // Unrecorded: lets the JIT warm up, so that the first size is not the slowest for that reason alone.
        drainBatch("w6-warmup-", options.scaleBatch(), new LinkedHashMap<>());
        long loaded = 0;
        long farDue = System.currentTimeMillis() + SCALE_PENDING_DELAY_MS;
        String payload = json(BenchPayload.of(0, farDue));
        for (long size : options.scaleSizes()) {
            long from = loaded;
            long t0 = System.nanoTime();
            meter.pipeline(() -> new LoadRequests(keys, sha, payload, from, size, farDue));
            double loadSeconds = (System.nanoTime() - t0) / 1e9;
            loaded = size;
            String probeId = "w6-" + (size - 1);
            Optional<JobInfo> probe = scheduler.find(BenchHandler.QUEUE, probeId);
            long expectedDue = farDue + (size - 1) % 3_600_000;
            if (probe.isEmpty() || probe.get().state() != JobInfo.State.PENDING
                    || probe.get().dueAt().toEpochMilli() != expectedDue) {
                throw new IllegalStateException("The bulk loader's layout no longer matches the extension's: find("
                        + probeId + ") returned " + probe);
            }
            long pending = scheduler.stats(BenchHandler.QUEUE).pending();
            double settleSeconds = settle(keys, settleSha, size);
            LOG.infof("W6: %d pending jobs loaded in %.1f s, settled in %.1f s (stats says %d pending)", size,
                    loadSeconds, settleSeconds, pending);
            List<Map<String, Object>> drains = new ArrayList<>();
            for (int k = 0; k < SCALE_DRAINS; k++) {
                drains.add(drainBatch("w6-due-" + size + "-" + k + "-", options.scaleBatch(), new LinkedHashMap<>()));
            }
            Map<String, Object> r = medianByRate(drains);
            r.put("pending", size);
            r.put("pendingLoadSeconds", loadSeconds);
            r.put("settleSeconds", settleSeconds);
            r.put("usedMemory", meter.counters().usedMemory());
            out.write("W6", r);
        }
    }

    /**
     * Looks up every pending job of the queue once, in its sorted set and its index hash (see settle.lua): right after
     * a bulk load, Redis is still moving the entries of the big keys' grown hash tables, and the drains would pay for
     * that instead of for the size. Returns the seconds it took.
     */
    private double settle(QueueKeys keys, String sha, long pending) {
        long t0 = System.nanoTime();
        for (int s = 0; s < keys.shards(); s++) {
            // In the order of KEYS in common.lua: 1 due, ..., 8 the prefix of the index hashes.
            List<String> shardKeys = keys.shard(s);
            settleKey(sha, shardKeys.get(0), pending);
            String indexPrefix = shardKeys.get(7);
            for (int b = 0; b < INDEX_HASHES_PER_SHARD; b++) {
                settleKey(sha, indexPrefix + ":" + b, pending);
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Looks up the entries of a key, a chunk per call; it holds at most {@code most} (each call has a timeout). */
    private void settleKey(String sha, String key, long most) {
        for (long first = 0; first <= most; first += SETTLE_CHUNK) {
            long n = meter.send(Request.cmd(Command.EVALSHA).arg(sha).arg(1).arg(key).arg(first).arg(SETTLE_CHUNK))
                    .toLong();
            if (n < SETTLE_CHUNK) {
                return;
            }
        }
        throw new IllegalStateException(key + " holds more than the " + most + " entries loaded");
    }

    /** The drain of median rate, with the rates of all of them in the order they ran. */
    private static Map<String, Object> medianByRate(List<Map<String, Object>> drains) {
        List<Object> rates = drains.stream().map(d -> d.get("rate")).toList();
        List<Map<String, Object>> byRate = new ArrayList<>(drains);
        byRate.sort(Comparator.comparingDouble(d -> (double) d.get("rate")));
        Map<String, Object> median = byRate.get(byRate.size() / 2);
        median.put("drainRates", rates);
        return median;
    }

    /** The script calls that load pending jobs {@code from..to-1}, a thousand ids per call, grouped by shard. */
    private final class LoadRequests implements Iterator<Request> {
        private final QueueKeys keys;
        private final String sha;
        private final String payload;
        private final long to;
        private final long farDue;
        private final List<List<String>> buffers = new ArrayList<>();
        private long next;
        private int flushShard = -1;

        LoadRequests(QueueKeys keys, String sha, String payload, long from, long to, long farDue) {
            this.keys = keys;
            this.sha = sha;
            this.payload = payload;
            this.next = from;
            this.to = to;
            this.farDue = farDue;
            for (int s = 0; s < keys.shards(); s++) {
                buffers.add(new ArrayList<>());
            }
        }

        @Override
        public boolean hasNext() {
            fill();
            return flushShard >= 0;
        }

        @Override
        public Request next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            List<String> ids = buffers.get(flushShard);
            Request call = Request.cmd(Command.EVALSHA).arg(sha).arg(keys.shard(flushShard).size());
            keys.shard(flushShard).forEach(call::arg);
            call.arg(payload);
            for (String id : ids) {
                call.arg(id).arg(farDue + Long.parseLong(id, 3, id.length(), 10) % 3_600_000);
            }
            ids.clear();
            flushShard = -1;
            return call;
        }

        /** Adds ids until a shard's buffer is full, or flushes the leftovers once all ids are placed. */
        private void fill() {
            if (flushShard >= 0) {
                return;
            }
            while (next < to) {
                String id = "w6-" + next++;
                int shard = keys.shardOf(id);
                List<String> buffer = buffers.get(shard);
                buffer.add(id);
                if (buffer.size() == LOADER_IDS_PER_CALL) {
                    flushShard = shard;
                    return;
                }
            }
            for (int s = 0; s < buffers.size(); s++) {
                if (!buffers.get(s).isEmpty()) {
                    flushShard = s;
                    return;
                }
            }
        }
    }

    private String json(Object payload) {
        try {
            return mapper.writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String resource(String name) {
        try (InputStream in = Workloads.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
