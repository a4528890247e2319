package io.quarkiverse.delayedjobs.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Appends one JSON object per measured figure to the results file; the report reads them back. The fields are the
 * same for every system: see the report's {@code Result} reader.
 */
public final class ResultWriter {

    public static final String SYSTEM = "quarkus";

    private final ObjectMapper mapper;
    private final Options options;

    public ResultWriter(ObjectMapper mapper, Options options) {
        this.mapper = mapper;
        this.options = options;
    }

    /**
     * Writes a phase that handled {@code jobs} jobs in {@code wallNanos}, with the Redis counters around it.
     *
     * @return the record written, for logging
     */
    public Map<String, Object> phase(String workload, long jobs, long wallNanos, Snapshot before, Snapshot after,
            Map<String, Object> extra) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("jobs", jobs);
        r.put("wallMs", wallNanos / 1e6);
        r.put("rate", jobs / (wallNanos / 1e9));
        long cpu = after.cpuMicros() - before.cpuMicros();
        r.put("redisCpuMicros", cpu);
        r.put("cpuPerJobUs", (double) cpu / jobs);
        r.put("redisCommands", after.commands() - before.commands());
        putClientCpu(r, jobs, before, after);
        r.putAll(extra);
        r.put("calls", after.callsSince(before));
        return write(workload, r);
    }

    /** The CPU this JVM spent over the phase, in all and per job: the client's share of each job's cost. */
    public static void putClientCpu(Map<String, Object> r, long jobs, Snapshot before, Snapshot after) {
        long cpu = after.clientCpuMicros() - before.clientCpuMicros();
        r.put("clientCpuMicros", cpu);
        r.put("clientCpuPerJobUs", (double) cpu / jobs);
    }

    public Map<String, Object> write(String workload, Map<String, Object> fields) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("type", "result");
        r.put("run", options.run());
        r.put("system", SYSTEM);
        r.put("workload", workload);
        r.putAll(fields);
        try {
            Files.writeString(options.out(), mapper.writeValueAsString(r) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return r;
    }
}
