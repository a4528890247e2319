package io.quarkiverse.delayedjobs.benchmark.peers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkiverse.delayedjobs.benchmark.measure.Counters;
import io.quarkiverse.delayedjobs.benchmark.measure.Phases;
import io.quarkiverse.delayedjobs.benchmark.measure.Results;
import io.quarkiverse.delayedjobs.benchmark.measure.Seen;

/**
 * The workloads against Redisson's delayed queue: producers offer to an {@link RDelayedQueue}, which moves due
 * elements into an {@link RBlockingQueue}; 16 consumer threads take from it. Redisson has no acknowledgement: an
 * element is gone once taken. Payloads are the same JSON text, stored with Redisson's {@link StringCodec}.
 */
public final class RedissonRunner {

    private static final String SYSTEM = "redisson";
    private static final int CONCURRENCY = 16;
    private static final Duration SETTLE = Duration.ofMillis(300);
    private static final long DRAIN_SPREAD_MS = 100;
    private static final int WARM_UP_ROUNDS = 2;

    private final RedissonClient redisson;
    private final Resp meter;
    private final Results out;
    private final int jobs;
    private final int window;
    private double enqueueRate;

    private RedissonRunner(RedissonClient redisson, Resp meter, Results out, int jobs, int window) {
        this.redisson = redisson;
        this.meter = meter;
        this.out = out;
        this.jobs = jobs;
        this.window = window;
    }

    public static void main(String... argv) {
        Args args = new Args(argv);
        int port = Integer.parseInt(args.require("port"));
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        RedissonClient redisson = Redisson.create(config);
        Set<String> workloads = args.workloads();
        try (Resp meter = new Resp(port)) {
            if (workloads.contains("IDLE")) {
                idle(redisson, args.integer("idle-seconds", 45));
                return;
            }
            RedissonRunner runner = new RedissonRunner(redisson, meter,
                    new Results(Path.of(args.require("out")), args.integer("run", 1), SYSTEM), args.integer("jobs", 100_000),
                    args.integer("window", 64));
            if (workloads.contains("W1") || workloads.contains("W2") || workloads.contains("W3")
                    || workloads.contains("W4")) {
                runner.warmUp();
            }
            if (workloads.contains("W1")) {
                runner.enqueue();
            }
            if (workloads.contains("W2") || workloads.contains("W4")) {
                runner.drain();
            }
            if (workloads.contains("W3")) {
                runner.lateness(args.integer("lateness-rate", 1000), args.integer("lateness-seconds", 20));
            }
        } finally {
            redisson.shutdown(0, 5, TimeUnit.SECONDS);
        }
    }

    /** W5: a delayed queue with its consumers, doing nothing while it is measured from outside. */
    private static void idle(RedissonClient redisson, int seconds) {
        RBlockingQueue<String> queue = redisson.getBlockingQueue("rq-idle");
        RDelayedQueue<String> delayed = redisson.getDelayedQueue(queue);
        Consumers consumers = new Consumers(queue, message -> {
        });
        System.out.println("BENCH-IDLE-READY");
        System.out.flush();
        Phases.pause(Duration.ofSeconds(seconds));
        consumers.stop();
        delayed.destroy();
    }

    /**
     * Unrecorded: {@value #WARM_UP_ROUNDS} rounds, each offering elements of W1's kind (due over the next 60 s, to a
     * queue without consumers, then deleted), then elements due at once that the consumers take, so that the JIT has
     * compiled the offer and take paths before anything is measured (every system of the benchmark gets the same
     * warm-up).
     */
    private void warmUp() {
        int n = jobs;
        for (int round = 0; round < WARM_UP_ROUNDS; round++) {
            RDelayedQueue<String> unconsumed = redisson
                    .getDelayedQueue(redisson.getBlockingQueue("rq-warm-up-enqueue"));
            offerOverNextMinute(unconsumed, n);
            unconsumed.destroy();
            meter.deleteKeys("*rq-warm-up-enqueue*");

            RBlockingQueue<String> queue = redisson.getBlockingQueue("rq-warm-up");
            RDelayedQueue<String> delayed = redisson.getDelayedQueue(queue);
            AtomicLong taken = new AtomicLong();
            Consumers consumers = new Consumers(queue, message -> taken.incrementAndGet());
            Phases.issue(n, window, i -> delayed.offerAsync(Payloads.json(i, System.currentTimeMillis()), 1,
                    TimeUnit.MILLISECONDS));
            Phases.await("all " + n + " warm-up elements taken", () -> taken.get() >= n);
            consumers.stop();
            delayed.destroy();
            meter.deleteKeys("*rq-warm-up*");
        }
    }

    /**
     * Offers W1's kind of elements: {@code n} due over the minute after the next one, so that none comes due while
     * they are offered (the delayed queue's transfer task would move them meanwhile, work the other systems do not do).
     */
    private void offerOverNextMinute(RDelayedQueue<String> delayed, int n) {
        long start = System.currentTimeMillis() + 60_000L;
        Phases.issue(n, window, i -> {
            long due = start + 60_000L * i / n;
            return delayed.offerAsync(Payloads.json(i, due), Math.max(1, due - System.currentTimeMillis()),
                    TimeUnit.MILLISECONDS);
        });
    }

    /** W1: offers jobs due over the next 60 s; nothing consumes them. */
    private void enqueue() {
        int n = jobs;
        RBlockingQueue<String> queue = redisson.getBlockingQueue("rq-enqueue");
        RDelayedQueue<String> delayed = redisson.getDelayedQueue(queue);
        Phases.pause(SETTLE);
        Counters before = meter.counters();
        long t0 = System.nanoTime();
        offerOverNextMinute(delayed, n);
        long wall = System.nanoTime() - t0;
        Counters after = meter.counters();
        enqueueRate = n / (wall / 1e9);
        out.phase("W1", n, wall, before, after, Map.of("window", window));
        delayed.destroy();
        meter.deleteKeys("*rq-enqueue*");
    }

    /**
     * W2 and W4: jobs due within 100 ms from a moment a little ahead, in the order they are offered; memory while
     * pending, then the time from that moment until the last take.
     */
    private void drain() {
        int n = jobs;
        RBlockingQueue<String> queue = redisson.getBlockingQueue("rq-drain");
        RDelayedQueue<String> delayed = redisson.getDelayedQueue(queue);
        Seen taken = new Seen(n);
        Consumers consumers = new Consumers(queue, payload -> taken.record(payload.get("seq").asLong()));
        double rate = enqueueRate > 0 ? enqueueRate : 5_000;
        long marginMs = (long) (1.5 * n / rate * 1000) + 2_000;
        Phases.pause(SETTLE);
        Counters empty = meter.counters();
        long loadStart = System.currentTimeMillis();
        long first = loadStart + marginMs;
        Phases.issue(n, window, i -> {
            long due = first + DRAIN_SPREAD_MS * i / n;
            return delayed.offerAsync(Payloads.json(i, due), Math.max(1, due - System.currentTimeMillis()),
                    TimeUnit.MILLISECONDS);
        });
        long loadEnd = System.currentTimeMillis();
        Phases.pause(SETTLE);
        Counters loaded = meter.counters();
        long bytes = loaded.usedMemory() - empty.usedMemory();
        out.write("W4", Map.of("jobs", n, "usedMemoryDelta", bytes, "bytesPerJob", (double) bytes / n));
        boolean overran = System.currentTimeMillis() + 100 > first;
        Phases.sleepUntil(first - 50);
        Counters before = meter.counters();
        Phases.sleepUntil(first);
        long t0 = System.nanoTime();
        Phases.await("all " + n + " elements taken", () -> taken.distinct() >= n);
        long wall = System.nanoTime() - t0;
        Counters after = meter.counters();
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("loadOverran", overran);
        extra.put("loadRate", n / ((loadEnd - loadStart) / 1e3));
        extra.put("duplicates", taken.duplicates());
        out.phase("W2", n, wall, before, after, extra);
        consumers.stop();
        delayed.destroy();
        meter.deleteKeys("*rq-drain*");
    }

    /** W3: a steady stream of elements each due 2 s after it was offered; how late is each taken? */
    private void lateness(int perSecond, int seconds) {
        int n = perSecond * seconds;
        long delayMs = 2_000;
        RBlockingQueue<String> queue = redisson.getBlockingQueue("rq-lateness");
        RDelayedQueue<String> delayed = redisson.getDelayedQueue(queue);
        long[] lateness = new long[n];
        AtomicInteger recorded = new AtomicInteger();
        Seen taken = new Seen(n);
        Consumers consumers = new Consumers(queue, payload -> {
            long now = Phases.nowMicros();
            int i = recorded.getAndIncrement();
            if (i < n) {
                lateness[i] = now - payload.get("due").asLong() * 1_000L;
            }
            taken.record(payload.get("seq").asLong());
        });
        Phases.pause(SETTLE);
        Counters before = meter.counters();
        long t0 = System.nanoTime();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicLong failures = new AtomicLong();
        long deadline = t0 + Duration.ofSeconds(seconds + 10L).toNanos();
        int sent = 0;
        while (sent < n && System.nanoTime() < deadline) {
            long target = Math.min(n, (System.nanoTime() - t0) / 1_000_000L * perSecond / 1000);
            while (sent < target && inFlight.get() < perSecond) {
                int seq = sent++;
                inFlight.incrementAndGet();
                delayed.offerAsync(Payloads.json(seq, System.currentTimeMillis() + delayMs), delayMs,
                        TimeUnit.MILLISECONDS).whenComplete((ok, e) -> {
                            if (e != null) {
                                failures.incrementAndGet();
                            }
                            inFlight.decrementAndGet();
                        });
            }
            LockSupport.parkNanos(200_000);
        }
        int scheduled = sent;
        Phases.await("all " + scheduled + " elements taken", () -> taken.distinct() >= scheduled,
                Duration.ofMillis(delayMs).plusSeconds(15));
        long wall = System.nanoTime() - t0;
        Counters after = meter.counters();
        long[] sorted = Arrays.copyOf(lateness, Math.min(n, recorded.get()));
        Arrays.sort(sorted);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("expected", n);
        extra.put("scheduled", scheduled);
        extra.put("scheduleFailures", failures.get());
        extra.put("received", taken.distinct());
        extra.put("duplicates", taken.duplicates());
        extra.put("p50Ms", Results.percentile(sorted, 50) / 1e3);
        extra.put("p99Ms", Results.percentile(sorted, 99) / 1e3);
        extra.put("maxMs", sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e3);
        extra.put("minMs", sorted.length == 0 ? 0 : sorted[0] / 1e3);
        out.phase("W3", n, wall, before, after, extra);
        consumers.stop();
        delayed.destroy();
        meter.deleteKeys("*rq-lateness*");
    }

    /** Threads that take from a queue until stopped, reading each payload as JSON like a handler would. */
    private static final class Consumers {
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean stopped;

        Consumers(RBlockingQueue<String> queue, Consumer<JsonNode> handler) {
            ObjectMapper mapper = new ObjectMapper();
            long deadline = System.nanoTime() + Phases.PHASE_LIMIT.multipliedBy(2).toNanos();
            for (int i = 0; i < CONCURRENCY; i++) {
                Thread thread = new Thread(() -> {
                    while (!stopped && System.nanoTime() < deadline) {
                        String message;
                        try {
                            message = queue.take();
                        } catch (InterruptedException e) {
                            return;
                        } catch (RuntimeException e) {
                            if (stopped) {
                                return;
                            }
                            throw e;
                        }
                        JsonNode payload;
                        try {
                            payload = mapper.readTree(message);
                        } catch (Exception e) {
                            throw new IllegalStateException("Unreadable payload " + message, e);
                        }
                        handler.accept(payload);
                    }
                }, "redisson-consumer-" + i);
                thread.setDaemon(true);
                thread.start();
                threads.add(thread);
            }
        }

        void stop() {
            stopped = true;
            threads.forEach(Thread::interrupt);
            for (Thread thread : threads) {
                try {
                    thread.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
