package io.quarkiverse.delayedjobs.benchmark.measure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Appends one JSON object per measured figure to the results file, with the fields every system writes: type, run,
 * system, workload, then the figures; the report reads them back. Each record is printed too, without its per-command
 * figures, to show progress.
 */
public final class Results {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Path file;
    private final int run;
    private final String system;

    public Results(Path file, int run, String system) {
        this.file = file;
        this.run = run;
        this.system = system;
    }

    /** Writes a phase that handled {@code jobs} jobs in {@code wallNanos}, with the Redis counters around it. */
    public Map<String, Object> phase(String workload, long jobs, long wallNanos, Counters before, Counters after,
            Map<String, Object> extra) {
        return write(workload, phaseFields(jobs, wallNanos, before, after, extra));
    }

    /** The fields {@link #phase} writes, to adjust before writing them. */
    public static Map<String, Object> phaseFields(long jobs, long wallNanos, Counters before, Counters after,
            Map<String, Object> extra) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("jobs", jobs);
        r.put("wallMs", wallNanos / 1e6);
        r.put("rate", jobs / (wallNanos / 1e9));
        long cpu = after.cpuMicros() - before.cpuMicros();
        r.put("redisCpuMicros", cpu);
        r.put("cpuPerJobUs", (double) cpu / jobs);
        r.put("redisCommands", after.commands() - before.commands());
        long clientCpu = after.clientCpuMicros() - before.clientCpuMicros();
        r.put("clientCpuMicros", clientCpu);
        r.put("clientCpuPerJobUs", (double) clientCpu / jobs);
        r.putAll(extra);
        r.put("calls", after.callsSince(before));
        return r;
    }

    public Map<String, Object> write(String workload, Map<String, Object> fields) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("type", "result");
        r.put("run", run);
        r.put("system", system);
        r.put("workload", workload);
        r.putAll(fields);
        try {
            Files.writeString(file, MAPPER.writeValueAsString(r) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Object> brief = new LinkedHashMap<>(r);
        brief.remove("calls");
        System.out.println(brief);
        return r;
    }

    /** Nearest-rank percentile of sorted values. */
    public static long percentile(long[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}
