package io.quarkiverse.delayedjobs.benchmark.peers;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.quarkiverse.delayedjobs.benchmark.measure.Counters;
import io.quarkiverse.delayedjobs.benchmark.measure.Phases;
import io.quarkiverse.delayedjobs.benchmark.measure.Results;

/**
 * The raw Redis ceiling: what Redis itself does for the operations a delayed-job system cannot avoid.
 * <ul>
 * <li>W1: {@code redis-benchmark} ZADD, 50 clients, unpipelined and pipelined;</li>
 * <li>W2 and W6: a bare claim script moving 100 members per call from one sorted set to another (no payload, no
 * token), called back to back on one connection;</li>
 * <li>W4: the memory of the least layout: one sorted-set member and one hash field holding the payload per job.</li>
 * </ul>
 */
public final class RawRunner {

    private static final String SYSTEM = "raw";
    private static final int CLAIM_BATCH = 100;
    private static final long LEASE_MS = 30_000;
    private static final int BENCHMARK_TIMEOUT_SECONDS = 180;
    /** Drains at each W6 size, as many as the extension's W6 makes; the median one counts. */
    private static final int SCALE_DRAINS = 3;
    /** Members looked up per call of settle.lua, the script of the application's W6. */
    private static final int SETTLE_CHUNK = 5000;

    private final int port;
    private final Resp redis;
    private final Results out;
    private final String claimSha;
    private final String fillSha;
    private final String settleSha;

    private RawRunner(int port, Resp redis, Results out) {
        this.port = port;
        this.redis = redis;
        this.out = out;
        this.claimSha = (String) redis.call("SCRIPT", "LOAD", resource("raw-claim.lua"));
        this.fillSha = (String) redis.call("SCRIPT", "LOAD", resource("raw-fill.lua"));
        this.settleSha = (String) redis.call("SCRIPT", "LOAD",
                resource("/io/quarkiverse/delayedjobs/benchmark/settle.lua"));
    }

    public static void main(String... argv) {
        Args args = new Args(argv);
        int port = Integer.parseInt(args.require("port"));
        Set<String> workloads = args.workloads();
        int jobs = args.integer("jobs", 100_000);
        try (Resp redis = new Resp(port)) {
            RawRunner runner = new RawRunner(port, redis,
                    new Results(Path.of(args.require("out")), args.integer("run", 1), SYSTEM));
            if (workloads.contains("W1")) {
                runner.zadd(2 * jobs, 1);
                runner.zadd(2 * jobs, 16);
            }
            if (workloads.contains("W2")) {
                runner.claim(jobs);
            }
            if (workloads.contains("W4")) {
                runner.memory(jobs);
            }
            if (workloads.contains("W6")) {
                List<Long> sizes = new ArrayList<>();
                for (String size : args.get("w6-sizes", "10000,1000000,10000000").split(",")) {
                    sizes.add(Long.parseLong(size.trim()));
                }
                sizes.sort(null);
                runner.scale(sizes, args.integer("w6-batch", 20_000));
            }
        }
    }

    /** W1 ceiling: redis-benchmark ZADD with random members, 50 clients, {@code pipeline} commands per round trip. */
    private void zadd(int requests, int pipeline) {
        redis.call("DEL", "raw:zadd");
        Counters before = redis.counters();
        List<String> command = new ArrayList<>(List.of("redis-benchmark", "-h", "127.0.0.1", "-p",
                String.valueOf(port), "-c", "50", "-n", String.valueOf(requests), "-r", "100000000", "--csv"));
        if (pipeline > 1) {
            command.addAll(List.of("-P", String.valueOf(pipeline)));
        }
        command.addAll(List.of("ZADD", "raw:zadd", "__rand_int__", "m:__rand_int__"));
        long t0 = System.nanoTime();
        String csv = run(command);
        long wall = System.nanoTime() - t0;
        Counters after = redis.counters();
        double rps = Double.NaN;
        for (String line : csv.split("\n")) {
            String[] cells = line.replace("\"", "").split(",");
            if (cells.length > 1 && cells[0].startsWith("ZADD")) {
                rps = Double.parseDouble(cells[1]);
            }
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("variant", pipeline > 1 ? "zadd-pipelined" : "zadd");
        extra.put("pipeline", pipeline);
        extra.put("clients", 50);
        Map<String, Object> r = Results.phaseFields(requests, wall, before, after, extra);
        // redis-benchmark's own figure leaves out its connection set-up; it is the one reported.
        r.put("rate", rps);
        r.put("processWallRate", requests / (wall / 1e9));
        // The client is redis-benchmark, not this process.
        r.remove("clientCpuMicros");
        r.remove("clientCpuPerJobUs");
        out.write("W1", r);
        redis.call("DEL", "raw:zadd");
    }

    /** W2 ceiling: claims {@code n} due members, 100 per call. */
    private void claim(int n) {
        redis.call("DEL", "raw:due", "raw:run");
        out.write("W2", measuredClaim("raw:due", "raw:run", n, "job-", Map.of("variant", "claim-" + CLAIM_BATCH)));
        redis.call("DEL", "raw:due", "raw:run");
    }

    /**
     * Adds {@code n} members due a minute ago to {@code due}, then claims them all into {@code running}; returns the
     * fields of that claim phase.
     */
    private Map<String, Object> measuredClaim(String due, String running, int n, String idPrefix,
            Map<String, Object> extra) {
        redis.call("EVALSHA", fillSha, 2, due, "", 0, n - 1, idPrefix, System.currentTimeMillis() - 60_000, 1000, "");
        Phases.pause(Duration.ofMillis(200));
        Counters before = redis.counters();
        long t0 = System.nanoTime();
        long claimed = claimAll(due, running, n);
        long wall = System.nanoTime() - t0;
        Counters after = redis.counters();
        return Results.phaseFields(claimed, wall, before, after, extra);
    }

    /** Calls the claim script back to back until it finds nothing due, at most {@code expected / 100 + 10} calls. */
    @SuppressWarnings("unchecked")
    private long claimAll(String due, String running, long expected) {
        long claimed = 0;
        for (long call = 0; call < expected / CLAIM_BATCH + 10; call++) {
            List<Object> ids = (List<Object>) redis.call("EVALSHA", claimSha, 2, due, running,
                    System.currentTimeMillis(), LEASE_MS, CLAIM_BATCH);
            if (ids.isEmpty()) {
                break;
            }
            claimed += ids.size();
        }
        return claimed;
    }

    /** W4 floor: one sorted-set member and one hash field with the ~100-byte payload per job. */
    private void memory(int n) {
        redis.call("DEL", "raw:mem", "raw:mem:payloads");
        Phases.pause(Duration.ofMillis(200));
        Counters before = redis.counters();
        redis.call("EVALSHA", fillSha, 2, "raw:mem", "raw:mem:payloads", 0, n - 1, "job-",
                System.currentTimeMillis() + 3_600_000, 60_000, Payloads.json(0, System.currentTimeMillis()));
        Phases.pause(Duration.ofMillis(200));
        Counters after = redis.counters();
        long bytes = after.usedMemory() - before.usedMemory();
        out.write("W4", Map.of("jobs", n, "usedMemoryDelta", bytes, "bytesPerJob", (double) bytes / n, "variant",
                "zset+hash"));
        redis.call("DEL", "raw:mem", "raw:mem:payloads");
    }

    /** W6 ceiling: the bare claim with 10k, 1M, 10M members that are not due yet in the same sorted set. */
    private void scale(List<Long> sizes, int batch) {
        redis.call("DEL", "raw:w6:due", "raw:w6:run");
        long far = System.currentTimeMillis() + 86_400_000L;
        long loaded = 0;
        for (long size : sizes) {
            long t0 = System.nanoTime();
            for (long from = loaded; from < size; from += 100_000) {
                redis.call("EVALSHA", fillSha, 2, "raw:w6:due", "", from, Math.min(size, from + 100_000) - 1, "p-", far,
                        3_600_000, "");
            }
            double loadSeconds = (System.nanoTime() - t0) / 1e9;
            loaded = size;
            long t1 = System.nanoTime();
            // The set holds the 'size' members loaded: a chunk per call, as many calls as that takes, and one more.
            long first = 0;
            while ((long) redis.call("EVALSHA", settleSha, 1, "raw:w6:due", first, SETTLE_CHUNK) == SETTLE_CHUNK) {
                first += SETTLE_CHUNK;
                if (first > size) {
                    throw new IllegalStateException("raw:w6:due holds more than the " + size + " members loaded");
                }
            }
            double settleSeconds = (System.nanoTime() - t1) / 1e9;
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("variant", "claim-" + CLAIM_BATCH);
            extra.put("pending", size);
            extra.put("pendingLoadSeconds", loadSeconds);
            extra.put("settleSeconds", settleSeconds);
            List<Map<String, Object>> drains = new ArrayList<>();
            for (int k = 0; k < SCALE_DRAINS; k++) {
                drains.add(measuredClaim("raw:w6:due", "raw:w6:run", batch, "due-" + size + "-" + k + "-", extra));
                redis.call("DEL", "raw:w6:run");
            }
            List<Object> rates = drains.stream().map(d -> d.get("rate")).toList();
            drains.sort(Comparator.comparingDouble(d -> (double) d.get("rate")));
            Map<String, Object> median = drains.get(drains.size() / 2);
            median.put("drainRates", rates);
            out.write("W6", median);
        }
        redis.call("UNLINK", "raw:w6:due");
    }

    private static String run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] output;
            try (InputStream in = process.getInputStream()) {
                output = in.readAllBytes();
            }
            if (!process.waitFor(BENCHMARK_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish");
            }
            return new String(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String resource(String name) {
        try (InputStream in = RawRunner.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
