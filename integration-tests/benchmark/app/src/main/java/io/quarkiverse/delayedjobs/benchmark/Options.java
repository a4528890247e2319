package io.quarkiverse.delayedjobs.benchmark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line of the benchmark application, as run.sh passes it ({@code --name value} pairs).
 *
 * @param workloads which of W1 (enqueue), W2 (drain), W3 (lateness), W4 (memory, measured while W2 loads), W6 (scale)
 *        to run; {@code idle} instead starts an idle instance for W5, measured from outside
 * @param out the JSON-lines file results are appended to
 * @param run the number of this run, copied into each result
 * @param jobs jobs of W1 and W2
 * @param window most schedule calls in flight from the single producer thread
 * @param latenessRate jobs per second of W3
 * @param latenessSeconds how long W3 schedules jobs
 * @param scaleSizes pending job counts of W6, ascending
 * @param scaleBatch due jobs drained at each W6 size
 * @param idleSeconds how long the idle instance lives
 */
public record Options(Set<String> workloads, Path out, int run, int jobs, int window, int latenessRate,
        int latenessSeconds, List<Long> scaleSizes, int scaleBatch, int idleSeconds) {

    public static Options parse(String... args) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("Expected --name value pairs, got " + String.join(" ", args));
            }
            values.put(args[i].substring(2), args[++i]);
        }
        List<Long> sizes = new ArrayList<>();
        for (String size : values.getOrDefault("w6-sizes", "10000,1000000,10000000").split(",")) {
            sizes.add(Long.parseLong(size.trim()));
        }
        sizes.sort(null);
        return new Options(Set.of(values.getOrDefault("workloads", "W1,W2,W3,W4,W6").toUpperCase().split(",")),
                Path.of(values.getOrDefault("out", "results.jsonl")), Integer.parseInt(values.getOrDefault("run", "1")),
                Integer.parseInt(values.getOrDefault("jobs", "100000")),
                Integer.parseInt(values.getOrDefault("window", "64")),
                Integer.parseInt(values.getOrDefault("lateness-rate", "1000")),
                Integer.parseInt(values.getOrDefault("lateness-seconds", "20")), List.copyOf(sizes),
                Integer.parseInt(values.getOrDefault("w6-batch", "20000")),
                Integer.parseInt(values.getOrDefault("idle-seconds", "45")));
    }

    public boolean has(String workload) {
        return workloads.contains(workload);
    }
}
