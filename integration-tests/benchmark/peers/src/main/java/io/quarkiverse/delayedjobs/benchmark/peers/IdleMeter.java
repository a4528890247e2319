package io.quarkiverse.delayedjobs.benchmark.peers;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import io.quarkiverse.delayedjobs.benchmark.measure.Counters;
import io.quarkiverse.delayedjobs.benchmark.measure.Results;

/**
 * W5, measured from outside the system under test: while one idle instance with one queue runs, counts the commands
 * Redis receives over a fixed time. {@code MONITOR} tells the commands clients send (top level) from those scripts
 * run inside (shown as coming from {@code lua}); {@code INFO} gives the total and the CPU time. The meter's own
 * commands are left out.
 */
public final class IdleMeter {

    public static void main(String... argv) {
        Args args = new Args(argv);
        int port = Integer.parseInt(args.require("port"));
        int seconds = args.integer("seconds", 30);
        Results out = new Results(Path.of(args.require("out")), args.integer("run", 1), args.require("system"));
        Map<String, Long> topLevel = new TreeMap<>();
        Map<String, Long> inScripts = new TreeMap<>();
        try (Resp info = new Resp(port); Resp monitor = new Resp(port)) {
            String self = "127.0.0.1:" + info.localPort();
            monitor.call("MONITOR");
            Counters before = info.counters();
            long t0 = System.nanoTime();
            long deadline = t0 + seconds * 1_000_000_000L;
            for (long line = 0; line < 10_000_000; line++) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    break;
                }
                monitor.readTimeout((int) left);
                Object entry;
                try {
                    entry = monitor.read();
                } catch (UncheckedIOException e) {
                    if (e.getCause() instanceof SocketTimeoutException) {
                        break;
                    }
                    throw e;
                }
                count(String.valueOf(entry), self, topLevel, inScripts);
            }
            long wall = System.nanoTime() - t0;
            Counters after = info.counters();
            double secs = wall / 1e9;
            long top = topLevel.values().stream().mapToLong(Long::longValue).sum();
            long nested = inScripts.values().stream().mapToLong(Long::longValue).sum();
            // The first INFO is counted in the second one's total; the second is not counted in its own.
            long total = after.commands() - before.commands() - 1;
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("seconds", secs);
            r.put("commandsPerSec", top / secs);
            r.put("totalCommandsPerSec", total / secs);
            r.put("scriptCommandsPerSec", nested / secs);
            r.put("redisCpuMicrosPerSec", (after.cpuMicros() - before.cpuMicros()) / secs);
            r.put("topLevel", topLevel);
            r.put("inScripts", inScripts);
            out.write("W5", r);
        }
    }

    /** Sorts one MONITOR line, {@code 1700000000.123456 [0 127.0.0.1:5555] "EVALSHA" ...}, into the counts. */
    private static void count(String line, String self, Map<String, Long> topLevel, Map<String, Long> inScripts) {
        int open = line.indexOf('[');
        int close = line.indexOf(']', open + 1);
        int quote = line.indexOf('"', close + 1);
        if (open < 0 || close < 0 || quote < 0) {
            return;
        }
        String client = line.substring(open + 1, close);
        int end = line.indexOf('"', quote + 1);
        String command = line.substring(quote + 1, end < 0 ? line.length() : end).toLowerCase();
        if (client.endsWith(" lua")) {
            inScripts.merge(command, 1L, Long::sum);
        } else if (!client.endsWith(" " + self)) {
            topLevel.merge(command, 1L, Long::sum);
        }
    }
}
