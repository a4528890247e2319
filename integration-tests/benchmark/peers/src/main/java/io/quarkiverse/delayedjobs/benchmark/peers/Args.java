package io.quarkiverse.delayedjobs.benchmark.peers;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** {@code --name value} pairs of a command line. */
final class Args {

    private final Map<String, String> values = new HashMap<>();

    Args(String... args) {
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("Expected --name value pairs, got " + String.join(" ", args));
            }
            values.put(args[i].substring(2), args[++i]);
        }
    }

    String get(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    String require(String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    int integer(String name, int fallback) {
        return Integer.parseInt(get(name, String.valueOf(fallback)));
    }

    Set<String> workloads() {
        return Set.of(get("workloads", "W1,W2,W3,W4,W6").toUpperCase().split(","));
    }
}
