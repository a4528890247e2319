package io.quarkiverse.delayedjobs.benchmark.measure;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.TreeMap;

import com.sun.management.OperatingSystemMXBean;

/**
 * The counters of {@code INFO cpu memory stats commandstats} at one moment, read by each runner through its own
 * client, and this process's CPU time.
 *
 * @param cpuMicros redis-server user + system CPU time
 * @param usedMemory {@code used_memory} in bytes
 * @param commands {@code total_commands_processed}, which counts the commands run inside scripts too
 * @param calls per command, {@code [calls, usec]} from commandstats
 * @param clientCpuMicros this JVM's user + system CPU time: the producer, the workers and the runner's own threads
 */
public record Counters(long cpuMicros, long usedMemory, long commands, Map<String, long[]> calls,
        long clientCpuMicros) {

    /** The arguments of the {@code INFO} command whose answer {@link #parse} reads. */
    public static final String[] INFO_SECTIONS = { "cpu", "memory", "stats", "commandstats" };

    /** Reads the answer of {@code INFO} with {@link #INFO_SECTIONS}; the process's CPU time is read now. */
    public static Counters parse(String info) {
        double user = 0;
        double sys = 0;
        long memory = 0;
        long commands = 0;
        Map<String, long[]> calls = new TreeMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String key = line.substring(0, colon);
            String value = line.substring(colon + 1).trim();
            switch (key) {
                case "used_cpu_user" -> user = Double.parseDouble(value);
                case "used_cpu_sys" -> sys = Double.parseDouble(value);
                case "used_memory" -> memory = Long.parseLong(value);
                case "total_commands_processed" -> commands = Long.parseLong(value);
                default -> {
                    if (key.startsWith("cmdstat_")) {
                        calls.put(key.substring("cmdstat_".length()),
                                new long[] { field(value, "calls"), field(value, "usec") });
                    }
                }
            }
        }
        return new Counters(Math.round((user + sys) * 1_000_000), memory, commands, calls, processCpuMicros());
    }

    private static long processCpuMicros() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1_000;
    }

    private static long field(String stats, String name) {
        for (String part : stats.split(",")) {
            if (part.startsWith(name + "=")) {
                return Long.parseLong(part.substring(name.length() + 1));
            }
        }
        return 0;
    }

    /** Per command, the calls and microseconds spent since {@code before}, leaving out commands not called. */
    public Map<String, Map<String, Long>> callsSince(Counters before) {
        Map<String, Map<String, Long>> delta = new TreeMap<>();
        calls.forEach((command, now) -> {
            long[] then = before.calls.getOrDefault(command, new long[2]);
            if (now[0] > then[0]) {
                delta.put(command, Map.of("calls", now[0] - then[0], "usec", now[1] - then[1]));
            }
        });
        return delta;
    }
}
