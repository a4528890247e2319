package io.quarkiverse.delayedjobs.benchmark.peers;

import java.awt.Color;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads the results of one benchmark session (every run, every system), takes the median of each figure over the
 * runs, and writes the report: a Markdown table with the ratios, the target check, the machine's load, charts, and
 * the documentation page that shows them.
 * <p>
 * Usage: {@code Report --results DIR [--docs docs/modules/ROOT]}; DIR holds {@code results.jsonl} and
 * {@code machine.properties} written by run.sh.
 */
public final class Report {

    private static final String US = "quarkus";
    /** Ends the chart series of this extension with a schedule linger (W3L); its colour is found by it. */
    private static final String LINGER_SERIES = ", schedule-linger";
    private static final List<String> PEERS = List.of("bullmq", "redisson", "raw");
    private static final List<String> SYSTEMS = List.of(US, "bullmq", "redisson", "raw");
    /** The systems whose own process the benchmark measures (the raw ceiling's client is redis-benchmark). */
    private static final List<String> CLIENTS = List.of(US, "bullmq", "redisson");
    /** Under the targets of both reports: the findings explain what the table cannot. */
    private static final String FINDINGS_NOTE = "Where the time goes for a target not met, what was measured and tried,"
            + " and what would reach it: `integration-tests/benchmark/FINDINGS.md` in the repository, one section per"
            + " round of engine work.";
    private static final String[] IMAGES = { "benchmark-throughput.png", "benchmark-lateness.png",
            "benchmark-redis-cpu.png", "benchmark-memory.png", "benchmark-scale.png" };

    private final List<JsonNode> results = new ArrayList<>();
    private final List<JsonNode> loads = new ArrayList<>();
    private final Properties machine = new Properties();

    private Report(Path dir) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        for (String line : Files.readAllLines(dir.resolve("results.jsonl"), StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode node = mapper.readTree(line);
            if ("load".equals(node.path("type").asText())) {
                loads.add(node);
            } else if ("result".equals(node.path("type").asText())) {
                results.add(node);
            }
        }
        Path properties = dir.resolve("machine.properties");
        if (Files.exists(properties)) {
            try (Reader in = Files.newBufferedReader(properties, StandardCharsets.UTF_8)) {
                machine.load(in);
            }
        }
    }

    public static void main(String... argv) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Args args = new Args(argv);
        Path dir = Path.of(args.require("results"));
        Report report = new Report(dir);
        String markdown = report.markdown();
        Files.writeString(dir.resolve("report.md"), markdown, StandardCharsets.UTF_8);
        report.charts(dir);
        String docs = args.get("docs", "");
        if (!docs.isEmpty()) {
            Path images = Path.of(docs, "assets", "images");
            Files.createDirectories(images);
            for (String image : IMAGES) {
                Path chart = dir.resolve(image);
                if (Files.exists(chart)) {
                    Files.copy(chart, images.resolve(image), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            // The figures of the page, kept beside it so that it can be checked against them.
            Path attachments = Path.of(docs, "attachments");
            Files.createDirectories(attachments);
            for (String file : List.of("results.jsonl", "machine.properties")) {
                Path stored = dir.resolve(file);
                if (Files.exists(stored)) {
                    Files.copy(stored, attachments.resolve("benchmark-" + file), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            Path page = Path.of(docs, "pages", "performance.adoc");
            Files.createDirectories(page.getParent());
            Files.writeString(page, report.asciidoc(), StandardCharsets.UTF_8);
        }
        System.out.println(markdown);
    }

    // ---------------------------------------------------------------- figures

    private static String variant(JsonNode r) {
        return r.path("variant").asText("");
    }

    /**
     * The results of a system's workload that {@code filter} accepts, but a drain whose loading ran past its due time
     * (its rate would count jobs drained before the clock started): those are left out, and {@link #summary()} says how
     * many.
     */
    private List<JsonNode> select(String system, String workload, Predicate<JsonNode> filter) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode r : results) {
            if (system.equals(r.path("system").asText()) && workload.equals(r.path("workload").asText())
                    && !r.path("loadOverran").asBoolean(false) && filter.test(r)) {
                out.add(r);
            }
        }
        return out;
    }

    private OptionalDouble median(String system, String workload, String field, Predicate<JsonNode> filter) {
        double[] values = select(system, workload, filter).stream().filter(r -> r.has(field))
                .mapToDouble(r -> r.get(field).asDouble()).sorted().toArray();
        if (values.length == 0) {
            return OptionalDouble.empty();
        }
        int mid = values.length / 2;
        return OptionalDouble.of(values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2);
    }

    private OptionalDouble median(String system, String workload, String field) {
        return median(system, workload, field, r -> true);
    }

    private static Predicate<JsonNode> variantIs(String variant) {
        return r -> variant.equals(variant(r));
    }

    private static Predicate<JsonNode> pendingIs(long pending) {
        return r -> r.path("pending").asLong() == pending;
    }

    private TreeSet<Long> scaleSizes() {
        TreeSet<Long> sizes = new TreeSet<>();
        for (JsonNode r : results) {
            if ("W6".equals(r.path("workload").asText())) {
                sizes.add(r.path("pending").asLong());
            }
        }
        return sizes;
    }

    /** The jobs a workload ran with, for its label ("100k"): {@code --jobs} and {@code --quick} change them. */
    private String jobsOf(String workload) {
        long jobs = largest(workload, "jobs");
        return jobs > 0 && jobs % 1000 == 0 ? jobs / 1000 + "k" : String.format(Locale.ROOT, "%,d", jobs);
    }

    /** A workload's length in whole seconds, for its label: its largest {@code field} divided by {@code perSecond}. */
    private long secondsOf(String workload, String field, int perSecond) {
        return Math.round((double) largest(workload, field) / perSecond);
    }

    /** The largest value of a field over the workload's results of the systems the options apply to (not raw's). */
    private long largest(String workload, String field) {
        return results.stream()
                .filter(r -> workload.equals(r.path("workload").asText()) && !"raw".equals(r.path("system").asText()))
                .mapToLong(r -> Math.round(r.path(field).asDouble())).max().orElse(0);
    }

    private int runs() {
        return (int) results.stream().mapToInt(r -> r.path("run").asInt()).distinct().count();
    }

    // ---------------------------------------------------------------- table

    /** One row of the main table: the figure per system, then the Redis CPU per job per system. */
    private record Row(String workload, String figure, Map<String, String> values, Map<String, String> ratios,
            Map<String, String> cpu) {
    }

    private static final String DASH = "—";

    private List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        rows.add(rateRow("W1 enqueue " + jobsOf("W1") + ", due over 60 s", "jobs/s", "W1"));
        rows.add(rateRow("W2 drain " + jobsOf("W2") + " due, concurrency 16", "jobs/s until last ack", "W2"));
        rows.add(latenessRow("W3", "W3 lateness, 1,000 jobs/s for " + secondsOf("W3", "jobs", 1_000) + " s, due +2 s"));
        rows.add(receivedRow("W3", "W3 lateness"));
        if (!select(US, "W3L", r -> true).isEmpty()) {
            String linger = "schedule-linger " + select(US, "W3L", r -> true).get(0).path("scheduleLinger").asText();
            rows.add(latenessRow("W3L", "W3 again, this extension with " + linger));
            rows.add(receivedRow("W3L", "W3 with " + linger));
        }
        rows.add(memoryRow());
        rows.add(idleRow());
        for (long size : scaleSizes()) {
            rows.add(scaleRow(size));
        }
        if (scaleSizes().size() > 1) {
            rows.add(flatnessRow());
        }
        return rows;
    }

    private Row rateRow(String title, String unit, String workload) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> ratios = new LinkedHashMap<>();
        Map<String, String> cpu = new LinkedHashMap<>();
        OptionalDouble ours = median(US, workload, "rate");
        for (String system : SYSTEMS) {
            if (system.equals("raw")) {
                List<String> parts = new ArrayList<>();
                List<String> ratioParts = new ArrayList<>();
                List<String> cpuParts = new ArrayList<>();
                for (String variant : rawVariants(workload)) {
                    OptionalDouble raw = median("raw", workload, "rate", variantIs(variant));
                    if (raw.isPresent()) {
                        parts.add(variant + " " + rate(raw));
                        ratioParts.add(ratio(ours, raw));
                        cpuParts.add(decimal(median("raw", workload, "cpuPerJobUs", variantIs(variant)), 1));
                    }
                }
                values.put(system, parts.isEmpty() ? DASH : String.join("; ", parts));
                ratios.put(system, ratioParts.isEmpty() ? DASH : String.join("; ", ratioParts));
                cpu.put(system, cpuParts.isEmpty() ? DASH : String.join("; ", cpuParts));
            } else {
                OptionalDouble value = median(system, workload, "rate");
                values.put(system, rate(value));
                ratios.put(system, ratio(ours, value));
                cpu.put(system, decimal(median(system, workload, "cpuPerJobUs"), 1));
            }
        }
        return new Row(title, unit, values, ratios, cpu);
    }

    private List<String> rawVariants(String workload) {
        return select("raw", workload, r -> true).stream().map(Report::variant).distinct().sorted().toList();
    }

    private Row latenessRow(String workload, String title) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> ratios = new LinkedHashMap<>();
        Map<String, String> cpu = new LinkedHashMap<>();
        OptionalDouble ourP99 = median(US, workload, "p99Ms");
        for (String system : SYSTEMS) {
            OptionalDouble p99 = median(system, workload, "p99Ms");
            if (p99.isEmpty()) {
                values.put(system, DASH);
                ratios.put(system, DASH);
                cpu.put(system, DASH);
                continue;
            }
            values.put(system, decimal(median(system, workload, "p50Ms"), 1) + " / " + decimal(p99, 1) + " / "
                    + decimal(median(system, workload, "maxMs"), 1));
            ratios.put(system, ratio(ourP99, p99) + " (p99)");
            cpu.put(system, decimal(median(system, workload, "cpuPerJobUs"), 1));
        }
        return new Row(title, "p50 / p99 / max ms", values, ratios, cpu);
    }

    private Row receivedRow(String workload, String title) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> blank = new LinkedHashMap<>();
        for (String system : SYSTEMS) {
            List<JsonNode> runs = select(system, workload, r -> true);
            blank.put(system, DASH);
            if (runs.isEmpty()) {
                values.put(system, DASH);
                continue;
            }
            long worst = runs.stream().mapToLong(r -> r.path("received").asLong()).min().orElse(0);
            long expected = runs.get(0).path("expected").asLong();
            values.put(system, worst + " of " + expected + (runs.size() > 1 ? " (worst run)" : ""));
        }
        return new Row(title, "jobs received", values, blank, blank);
    }

    private Row memoryRow() {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> ratios = new LinkedHashMap<>();
        Map<String, String> cpu = new LinkedHashMap<>();
        OptionalDouble ours = median(US, "W4", "bytesPerJob");
        for (String system : SYSTEMS) {
            OptionalDouble value = median(system, "W4", "bytesPerJob");
            values.put(system, decimal(value, 0) + (system.equals("raw") && value.isPresent() ? " (zset + hash)" : ""));
            ratios.put(system, ratio(ours, value));
            cpu.put(system, DASH);
        }
        return new Row("W4 memory, " + jobsOf("W4") + " pending", "Redis bytes per job", values, ratios, cpu);
    }

    private Row idleRow() {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> ratios = new LinkedHashMap<>();
        Map<String, String> cpu = new LinkedHashMap<>();
        OptionalDouble ours = median(US, "W5", "commandsPerSec");
        for (String system : SYSTEMS) {
            OptionalDouble top = median(system, "W5", "commandsPerSec");
            if (top.isEmpty()) {
                values.put(system, DASH);
                ratios.put(system, DASH);
                cpu.put(system, DASH);
                continue;
            }
            values.put(system, decimal(top, 2) + " (" + decimal(median(system, "W5", "totalCommandsPerSec"), 2) + ")");
            ratios.put(system, ratio(ours, top));
            cpu.put(system, decimal(median(system, "W5", "redisCpuMicrosPerSec"), 0) + " µs/s");
        }
        return new Row("W5 idle, one instance, one queue, " + secondsOf("W5", "seconds", 1) + " s",
                "commands/s sent (all, with those in scripts)", values, ratios, cpu);
    }

    private Row scaleRow(long size) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> ratios = new LinkedHashMap<>();
        Map<String, String> cpu = new LinkedHashMap<>();
        OptionalDouble ours = median(US, "W6", "rate", pendingIs(size));
        for (String system : SYSTEMS) {
            OptionalDouble value = median(system, "W6", "rate", pendingIs(size));
            values.put(system, rate(value));
            ratios.put(system, ratio(ours, value));
            cpu.put(system, decimal(median(system, "W6", "cpuPerJobUs", pendingIs(size)), 1));
        }
        return new Row("W6 scale, " + count(size) + " pending not due", "claim (drain) jobs/s", values, ratios, cpu);
    }

    private Row flatnessRow() {
        long smallest = scaleSizes().first();
        long largest = scaleSizes().last();
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> blank = new LinkedHashMap<>();
        for (String system : SYSTEMS) {
            blank.put(system, DASH);
            OptionalDouble small = median(system, "W6", "rate", pendingIs(smallest));
            OptionalDouble large = median(system, "W6", "rate", pendingIs(largest));
            values.put(system, small.isPresent() && large.isPresent()
                    ? String.format(Locale.ROOT, "%.0f %%", 100 * large.getAsDouble() / small.getAsDouble())
                    : DASH);
        }
        return new Row("W6 scale", "rate at " + count(largest) + " ÷ rate at " + count(smallest), values, blank, blank);
    }

    private static String rate(OptionalDouble value) {
        return value.isPresent() ? String.format(Locale.ROOT, "%,.0f", value.getAsDouble()) : DASH;
    }

    private static String decimal(OptionalDouble value, int digits) {
        return value.isPresent() ? String.format(Locale.ROOT, "%,." + digits + "f", value.getAsDouble()) : DASH;
    }

    private static String ratio(OptionalDouble ours, OptionalDouble peer) {
        if (ours.isEmpty() || peer.isEmpty() || peer.getAsDouble() == 0) {
            return DASH;
        }
        return String.format(Locale.ROOT, "%.2f×", ours.getAsDouble() / peer.getAsDouble());
    }

    private static String count(long n) {
        if (n >= 1_000_000 && n % 1_000_000 == 0) {
            return n / 1_000_000 + "M";
        }
        if (n >= 1_000 && n % 1_000 == 0) {
            return n / 1_000 + "k";
        }
        return String.valueOf(n);
    }

    private List<String> header() {
        List<String> header = new ArrayList<>(List.of("Workload", "Figure", name(US)));
        for (String peer : PEERS) {
            header.add(name(peer));
            header.add("us ÷ " + shortName(peer));
        }
        for (String system : SYSTEMS) {
            header.add("Redis CPU µs/job " + shortName(system));
        }
        return header;
    }

    private List<List<String>> cells() {
        List<List<String>> table = new ArrayList<>();
        for (Row row : rows()) {
            List<String> cells = new ArrayList<>(List.of(row.workload(), row.figure(), row.values().get(US)));
            for (String peer : PEERS) {
                cells.add(row.values().get(peer));
                cells.add(row.ratios().get(peer));
            }
            for (String system : SYSTEMS) {
                cells.add(row.cpu().get(system));
            }
            table.add(cells);
        }
        return table;
    }

    private String name(String system) {
        return switch (system) {
            case US -> "Quarkus Delayed Jobs";
            case "bullmq" -> "BullMQ " + machine.getProperty("bullmq", "");
            case "redisson" -> "Redisson " + machine.getProperty("redisson", "");
            default -> "Raw Redis ceiling";
        };
    }

    private static String shortName(String system) {
        return switch (system) {
            case US -> "us";
            case "bullmq" -> "BullMQ";
            case "redisson" -> "Redisson";
            default -> "raw";
        };
    }

    // ---------------------------------------------------------------- targets

    /** The targets of issue 4, checked against our medians. */
    private List<List<String>> targets() {
        List<List<String>> rows = new ArrayList<>();
        OptionalDouble w1 = median(US, "W1", "rate");
        OptionalDouble w1cpu = median(US, "W1", "cpuPerJobUs");
        rows.add(List.of("W1 enqueue", "≥ 40,000 jobs/s, ≤ 15 µs Redis CPU/job",
                rate(w1) + " jobs/s, " + decimal(w1cpu, 1) + " µs/job",
                met(w1.isPresent() && w1cpu.isPresent() && w1.getAsDouble() >= 40_000 && w1cpu.getAsDouble() <= 15,
                        w1.isPresent())));
        OptionalDouble w2 = median(US, "W2", "rate");
        OptionalDouble w2cpu = median(US, "W2", "cpuPerJobUs");
        rows.add(List.of("W2 drain", "≥ 50,000 jobs/s, ≤ 15 µs/job", rate(w2) + " jobs/s, " + decimal(w2cpu, 1)
                + " µs/job",
                met(w2.isPresent() && w2cpu.isPresent() && w2.getAsDouble() >= 50_000 && w2cpu.getAsDouble() <= 15,
                        w2.isPresent())));
        rows.add(latenessTarget("W3", "W3 lateness"));
        if (!select(US, "W3L", r -> true).isEmpty()) {
            rows.add(latenessTarget("W3L", "W3 with schedule-linger "
                    + select(US, "W3L", r -> true).get(0).path("scheduleLinger").asText()));
        }
        OptionalDouble w4 = median(US, "W4", "bytesPerJob");
        rows.add(List.of("W4 memory", "≤ 250 B/job", decimal(w4, 0) + " B/job",
                met(w4.isPresent() && w4.getAsDouble() <= 250, w4.isPresent())));
        OptionalDouble w5 = median(US, "W5", "commandsPerSec");
        OptionalDouble w5all = median(US, "W5", "totalCommandsPerSec");
        rows.add(List.of("W5 idle", "≤ 0.5 commands/s per instance and queue",
                decimal(w5, 2) + " commands/s sent (" + decimal(w5all, 2) + " with those in scripts)",
                met(w5.isPresent() && w5.getAsDouble() <= 0.5, w5.isPresent())));
        TreeSet<Long> sizes = scaleSizes();
        if (sizes.size() > 1) {
            OptionalDouble small = median(US, "W6", "rate", pendingIs(sizes.first()));
            OptionalDouble large = median(US, "W6", "rate", pendingIs(sizes.last()));
            boolean present = small.isPresent() && large.isPresent();
            double share = present ? large.getAsDouble() / small.getAsDouble() : 0;
            rows.add(List.of("W6 scale", "rate at 10M pending ≥ 70 % of the rate at 10k",
                    present ? String.format(Locale.ROOT, "%.0f %% (%s → %s jobs/s, %s → %s pending)", 100 * share,
                            rate(small), rate(large), count(sizes.first()), count(sizes.last())) : DASH,
                    met(share >= 0.7, present)));
        }
        return rows;
    }

    private List<String> latenessTarget(String workload, String title) {
        OptionalDouble p99 = median(US, workload, "p99Ms");
        OptionalDouble max = median(US, workload, "maxMs");
        OptionalDouble cpu = median(US, workload, "cpuPerJobUs");
        List<JsonNode> runs = select(US, workload, r -> true);
        boolean all = !runs.isEmpty() && runs.stream().allMatch(r -> r.path("received").asLong() == r.path("expected")
                .asLong() && r.path("duplicates").asLong(0) == 0);
        return List.of(title, "p99 ≤ 5 ms, max ≤ 25 ms, all received, ≤ 40 µs/job",
                "p99 " + decimal(p99, 1) + " ms, max " + decimal(max, 1) + " ms, " + (all ? "all" : "not all")
                        + " received, " + decimal(cpu, 1) + " µs/job",
                met(p99.isPresent() && p99.getAsDouble() <= 5 && max.getAsDouble() <= 25 && all
                        && cpu.getAsDouble() <= 40, p99.isPresent()));
    }

    private static String met(boolean met, boolean measured) {
        return measured ? (met ? "met" : "**not met**") : "not measured";
    }

    // ---------------------------------------------------------------- where the time goes

    /** Per system and workload, the commands that took most Redis time in the first run, per job. */
    private List<List<String>> hotCommands() {
        List<List<String>> rows = new ArrayList<>();
        for (String workload : List.of("W1", "W2", "W3", "W3L")) {
            for (String system : SYSTEMS) {
                List<JsonNode> runs = select(system, workload, r -> r.has("calls"));
                for (JsonNode r : runs.stream().filter(r -> r.path("run").asInt() == runs.get(0).path("run").asInt())
                        .toList()) {
                    double jobs = r.path("jobs").asDouble();
                    List<Map.Entry<String, JsonNode>> calls = new ArrayList<>();
                    r.get("calls").fields().forEachRemaining(calls::add);
                    // The meters' and redis-benchmark's own housekeeping is not the system's cost.
                    calls.removeIf(e -> e.getKey().equals("info") || e.getKey().equals("hello")
                            || e.getKey().startsWith("config|") || e.getKey().startsWith("script|")
                            || e.getKey().startsWith("client|"));
                    calls.sort(Comparator.comparingLong((Map.Entry<String, JsonNode> e) -> e.getValue().path("usec")
                            .asLong()).reversed());
                    List<String> top = new ArrayList<>();
                    for (Map.Entry<String, JsonNode> e : calls.subList(0, Math.min(5, calls.size()))) {
                        top.add(String.format(Locale.ROOT, "%s %.2f calls, %.1f µs", e.getKey(),
                                e.getValue().path("calls").asDouble() / jobs,
                                e.getValue().path("usec").asDouble() / jobs));
                    }
                    String label = variant(r).isEmpty() ? name(system) : name(system) + " (" + variant(r) + ")";
                    rows.add(List.of(workload, label, String.join("; ", top)));
                }
            }
        }
        return rows;
    }

    // ---------------------------------------------------------------- client CPU

    private List<String> clientCpuHeader() {
        List<String> header = new ArrayList<>(List.of("Workload"));
        CLIENTS.forEach(system -> header.add("client µs/job " + shortName(system)));
        CLIENTS.forEach(system -> header.add("client + Redis µs/job " + shortName(system)));
        return header;
    }

    /**
     * Per workload and system, the CPU its own process spent per job (producer and workers in one process, the
     * harness's threads included), and that plus Redis's: on two cores shared by both, the sum bounds a rate.
     */
    private List<List<String>> clientCpuRows() {
        List<List<String>> rows = new ArrayList<>();
        for (String workload : List.of("W1", "W2", "W3", "W3L")) {
            List<String> row = new ArrayList<>(List.of(workload));
            List<String> sums = new ArrayList<>();
            for (String system : CLIENTS) {
                OptionalDouble client = median(system, workload, "clientCpuPerJobUs");
                OptionalDouble redis = median(system, workload, "cpuPerJobUs");
                row.add(decimal(client, 1));
                sums.add(client.isPresent() && redis.isPresent()
                        ? decimal(OptionalDouble.of(client.getAsDouble() + redis.getAsDouble()), 1)
                        : DASH);
            }
            row.addAll(sums);
            if (row.stream().skip(1).anyMatch(cell -> !cell.equals(DASH))) {
                rows.add(row);
            }
        }
        return rows;
    }

    // ---------------------------------------------------------------- spread

    /** Each run's value of the figures that move most with the machine's load. */
    private List<List<String>> spreadRows() {
        List<List<String>> rows = new ArrayList<>();
        record Figure(String workload, String field, String label, int digits) {
        }
        List<Figure> figures = List.of(new Figure("W1", "rate", "W1 jobs/s", 0), new Figure("W2", "rate", "W2 jobs/s", 0),
                new Figure("W3", "p99Ms", "W3 p99 ms", 1), new Figure("W3", "maxMs", "W3 max ms", 1),
                new Figure("W1", "cpuPerJobUs", "W1 Redis CPU µs/job", 1),
                new Figure("W2", "cpuPerJobUs", "W2 Redis CPU µs/job", 1),
                new Figure("W3", "cpuPerJobUs", "W3 Redis CPU µs/job", 1), new Figure("W3L", "p99Ms", "W3L p99 ms", 1),
                new Figure("W3L", "maxMs", "W3L max ms", 1), new Figure("W3L", "cpuPerJobUs", "W3L Redis CPU µs/job", 1));
        for (Figure figure : figures) {
            for (String system : List.of(US, "bullmq", "redisson")) {
                List<JsonNode> results = select(system, figure.workload(), r -> r.has(figure.field()));
                if (!results.isEmpty()) {
                    rows.add(List.of(figure.label(), name(system), perRun(results,
                            r -> String.format(Locale.ROOT, "%,." + figure.digits() + "f",
                                    r.get(figure.field()).asDouble()))));
                }
            }
        }
        for (long size : scaleSizes()) {
            rows.add(List.of("W6 jobs/s at " + count(size) + " pending", name(US), perRun(select(US, "W6",
                    pendingIs(size)), r -> String.format(Locale.ROOT, "%,.0f", r.path("rate").asDouble()))));
        }
        return rows;
    }

    /** Each run's value in run order, with a dash for a run that left no result (its log says why). */
    private String perRun(List<JsonNode> results, Function<JsonNode, String> value) {
        List<String> values = new ArrayList<>();
        for (int run = 1; run <= runs(); run++) {
            int wanted = run;
            values.add(results.stream().filter(r -> r.path("run").asInt() == wanted).findFirst().map(value)
                    .orElse(DASH));
        }
        return String.join(" / ", values);
    }

    // ---------------------------------------------------------------- load

    /**
     * Per run and system: the load average before and after, and the share of the CPU time the hypervisor took
     * meanwhile (steal, from {@code /proc/stat}): on a shared virtual machine that share, when high, doubles figures.
     */
    private List<List<String>> loadRows() {
        List<List<String>> rows = new ArrayList<>();
        Map<String, JsonNode[]> byRun = new LinkedHashMap<>();
        for (JsonNode l : loads) {
            String key = l.path("run").asText() + "|" + l.path("system").asText();
            byRun.computeIfAbsent(key, k -> new JsonNode[2])["before".equals(l.path("when").asText()) ? 0 : 1] = l;
        }
        byRun.forEach((key, pair) -> {
            String[] parts = key.split("\\|");
            rows.add(List.of(parts[0], name(parts[1]), loadText(pair[0]), loadText(pair[1]), stealText(pair)));
        });
        return rows;
    }

    private static String loadText(JsonNode l) {
        return l == null ? DASH
                : l.path("load1").asText() + " / " + l.path("load5").asText() + " / " + l.path("load15").asText();
    }

    private static String stealText(JsonNode[] pair) {
        if (pair[0] == null || pair[1] == null || !pair[0].has("cpuSteal") || !pair[1].has("cpuSteal")) {
            return DASH;
        }
        double total = pair[1].path("cpuTotal").asDouble() - pair[0].path("cpuTotal").asDouble();
        double steal = pair[1].path("cpuSteal").asDouble() - pair[0].path("cpuSteal").asDouble();
        return total <= 0 ? DASH : String.format(Locale.ROOT, "%.1f %%", 100 * steal / total);
    }

    // ---------------------------------------------------------------- rendering

    private String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmark report\n\n");
        md.append(summary()).append("\n\n");
        md.append(markdownTable(header(), cells()));
        md.append("\nRatio = ours ÷ peer: above 1 is better for rates; below 1 is better for lateness, memory, idle"
                + " commands and CPU. Redis CPU = redis-server user + system time over the phase ÷ jobs.\n\n");
        md.append("## Targets (issue 4)\n\n");
        md.append(markdownTable(List.of("Workload", "Target", "Measured (median)", "Status"), targets()));
        md.append("\n").append(FINDINGS_NOTE).append("\n");
        md.append("\n## Spread over the runs (run 1 / run 2 / ...; a dash: no result in that run, see its log)\n\n");
        md.append(markdownTable(List.of("Figure", "System", "Runs"), spreadRows()));
        md.append("\n## Where Redis spends its time (commandstats of the first run, per job)\n\n");
        md.append(markdownTable(List.of("Workload", "System", "Top commands by Redis time"), hotCommands()));
        md.append("\n## CPU per job outside Redis (each system's own process: producer, workers and the harness)\n\n");
        md.append(markdownTable(clientCpuHeader(), clientCpuRows()));
        md.append("\n## Machine load (1 / 5 / 15 min load average; steal: the CPU time the hypervisor took during the"
                + " run)\n\n");
        md.append(markdownTable(List.of("Run", "System", "Before", "After", "Steal"), loadRows()));
        md.append("\n## Machine\n\n").append(machineText("- ")).append('\n');
        return md.toString();
    }

    private String summary() {
        return String.format(Locale.ROOT, "%s; %d run(s), medians shown%s. Command: `%s`", machine.getProperty("date",
                "date unknown"), runs(), shortfalls(),
                machine.getProperty("command",
                        "integration-tests/benchmark/run.sh"));
    }

    /**
     * What the medians lack: the drains left out because their loading overran, and the workloads of a system with
     * fewer results than runs (a runner that failed in a run); empty when nothing is missing.
     */
    private String shortfalls() {
        List<String> notes = new ArrayList<>();
        long overran = results.stream().filter(r -> r.path("loadOverran").asBoolean(false)).count();
        if (overran > 0) {
            notes.add(overran + " drain(s) left out, their loading having run past their due time");
        }
        int runs = runs();
        Map<String, Long> counts = new TreeMap<>();
        for (JsonNode r : results) {
            String workload = r.path("workload").asText();
            if (!"W6".equals(workload) && !"raw".equals(r.path("system").asText())) {
                counts.merge(r.path("system").asText() + " " + workload, 1L, Long::sum);
            }
        }
        counts.forEach((what, n) -> {
            if (n < runs) {
                notes.add(what + " of " + n + " run(s)");
            }
        });
        return notes.isEmpty() ? "" : " (" + String.join("; ", notes) + ")";
    }

    private String machineText(String bullet) {
        StringBuilder text = new StringBuilder();
        for (String key : List.of("cpu", "cores", "memory", "os", "java", "node", "redis", "quarkus", "bullmq",
                "ioredis", "redisson")) {
            String value = machine.getProperty(key);
            if (value != null) {
                text.append(bullet).append(key).append(": ").append(value).append('\n');
            }
        }
        return text.toString();
    }

    private static String markdownTable(List<String> header, List<List<String>> rows) {
        StringBuilder md = new StringBuilder();
        md.append("| ").append(String.join(" | ", header)).append(" |\n");
        md.append("|").append("---|".repeat(header.size())).append('\n');
        for (List<String> row : rows) {
            md.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        return md.toString();
    }

    private static String asciidocTable(String cols, List<String> header, List<List<String>> rows) {
        StringBuilder adoc = new StringBuilder();
        adoc.append("[cols=\"").append(cols).append("\",options=\"header\"]\n|===\n");
        for (String cell : header) {
            adoc.append("|").append(cell.replace("|", "\\|")).append(' ');
        }
        adoc.append("\n");
        for (List<String> row : rows) {
            adoc.append('\n');
            for (String cell : row) {
                adoc.append("|").append(cell.replace("|", "\\|").replace("**", "*")).append('\n');
            }
        }
        adoc.append("|===\n");
        return adoc.toString();
    }

    private String asciidoc() {
        StringBuilder adoc = new StringBuilder();
        adoc.append("= Performance\n\n");
        adoc.append("This page is written by the benchmark module (`integration-tests/benchmark`), which runs the"
                + " workloads of the specification against this extension, BullMQ and Redisson's delayed queue, and"
                + " the raw Redis ceiling, one after the other on the same machine and the same Redis build. Each"
                + " system gets a fresh `redis-server` (no persistence); the Redis CPU time per job is read from"
                + " `INFO cpu` around each phase, and it is the steadier figure on a shared machine.\n\n");
        adoc.append("== Run it\n\nFrom the root of a clone (it builds what it needs, about 10 minutes a run on two"
                + " cores):\n\n[source,shell]\n----\nintegration-tests/benchmark/run.sh --runs 3\n----\n\n");
        adoc.append("`integration-tests/benchmark/run.sh --help` lists the options: `--runs N` (medians over the runs),"
                + " `--systems quarkus,bullmq,redisson,raw`, `--workloads W1,...,W6`, `--quick` for a short"
                + " smoke run. It needs `redis-server` and `redis-benchmark`, JDK 17, Node 20 with npm, and"
                + " `python3`.\n\n");
        adoc.append("== Results\n\n").append(summary().replace("`", "+")).append(". The figures below come from"
                + " xref:attachment$benchmark-results.jsonl[the run's results] (one JSON line per phase) on"
                + " xref:attachment$benchmark-machine.properties[this machine].\n\n");
        String cols = "3,2,2" + ",2,1".repeat(PEERS.size()) + ",1".repeat(SYSTEMS.size());
        adoc.append(asciidocTable(cols, header(), cells()));
        adoc.append("\nRatio = ours ÷ peer: above 1 is better for rates; below 1 is better for lateness, memory, idle"
                + " commands and CPU.\n\n");
        adoc.append("image::benchmark-throughput.png[Throughput per system]\n\n");
        adoc.append("image::benchmark-lateness.png[Lateness percentiles per system]\n\n");
        adoc.append("image::benchmark-redis-cpu.png[Redis CPU per job]\n\n");
        adoc.append("image::benchmark-memory.png[Redis memory per pending job]\n\n");
        adoc.append("image::benchmark-scale.png[Claim rate against pending jobs]\n\n");
        adoc.append("== Targets\n\n");
        adoc.append(asciidocTable("2,3,4,1", List.of("Workload", "Target", "Measured (median)", "Status"), targets()));
        adoc.append("\n").append(FINDINGS_NOTE).append(" Why W3's Redis CPU stays above its target by default, and"
                + " what the opt-in `schedule-linger` of W3L trades for it: xref:concepts.adoc#schedule-linger[Lingering"
                + " producers].\n");
        adoc.append("\n== Spread over the runs\n\nEach run's value (run 1 / run 2 / ...) of the figures that move most"
                + " with the load of the machine; compare with the load table below. A dash marks a run that left no"
                + " result (its log in the results folder says why).\n\n");
        adoc.append(asciidocTable("2,2,4", List.of("Figure", "System", "Runs"), spreadRows()));
        adoc.append("\n== Where Redis spends its time\n\nCommand statistics (`INFO commandstats`) of the first run, per"
                + " job: calls and Redis time of the most expensive commands. Commands run inside a script are"
                + " listed as well as the script call itself.\n\n");
        adoc.append(asciidocTable("1,2,7", List.of("Workload", "System", "Top commands by Redis time"),
                hotCommands()));
        adoc.append("\n== CPU per job outside Redis\n\nThe CPU time each system's own process spent over the"
                + " phase, per job: one process holds the producer and the workers (a JVM for this extension and for"
                + " Redisson, Node for BullMQ), and the benchmark's own threads count too. Redis and that process share"
                + " the machine's two cores, so their sum bounds the rate: at 50 µs per job both cores are full at"
                + " 40,000 jobs a second.\n\n");
        adoc.append(asciidocTable("1" + ",1".repeat(2 * CLIENTS.size()), clientCpuHeader(), clientCpuRows()));
        adoc.append("\n== Workloads\n\n");
        adoc.append("""
                Every payload is the same JSON of about 100 bytes; handlers do nothing. Producers are one thread (one
                event loop for BullMQ) with at most 64 calls in flight; consumers run 16 jobs at once. Before W1, each
                system runs two unmeasured rounds, each of 100,000 jobs of W1's kind (then deleted) and 100,000 due at
                once that it runs, so that its JIT (HotSpot, V8) has compiled the paths of both kinds of job.

                W1 enqueue:: 100,000 jobs due over the minute after the next one (none comes due while they are
                scheduled), each with its own id, to a queue nobody consumes.
                W2 drain:: 100,000 jobs due within 100 ms from a moment a few seconds ahead (chosen so that loading
                them ends before), in the order they are scheduled; one instance with concurrency 16; from that moment
                until the last acknowledgement (Redisson has none: until the last element is taken).
                W3 lateness:: 1,000 jobs/s for 20 s, each due 2 s after it was scheduled; handler start minus the due
                time its producer asked for (carried in the payload, the same for every system), and every job must
                arrive, once.
                W3L:: W3 again, for this extension only, in an instance whose producer lingers
                (`quarkus.delayed-jobs.schedule-linger`, an opt-in setting: each schedule call may wait that long for
                others, and then every shard's jobs go together).
                W4 memory:: `used_memory` before and after loading W2's 100,000 jobs, while they are pending.
                W5 idle:: one idle instance with one queue, watched for 30 s with `MONITOR` (commands clients send, and
                those scripts run) and `INFO` (CPU).
                W6 scale:: 10k, 1M and 10M jobs that are not due are loaded into the queue (the extension's through a
                bulk script writing its documented layout, checked through `find`). Then every loaded member is looked
                up once: Redis grows a big key's hash table by moving its entries a bucket per operation on the key,
                and right after a bulk load the next operations would pay for that move, a cost of the load rather
                than of the size. Then a batch of due jobs (20,000) is drained three times at each size; the drain of
                median rate is the size's figure. The raw ceiling does the same with its one sorted set.
                Raw ceiling:: `redis-benchmark` ZADD with 50 clients, unpipelined and pipelined by 16; a bare claim
                script moving 100 members per call from one sorted set to another; the memory of one sorted-set member
                plus one hash field with the payload.

                """);
        adoc.append("== Machine\n\n").append(machineText("* ")).append('\n');
        adoc.append("Load average (1 / 5 / 15 min) before and after each system's run, and the share of the CPU"
                + " time the hypervisor took meanwhile (steal): other machines share this one's host, so read the"
                + " figures with it.\n\n");
        adoc.append(asciidocTable("1,3,2,2,1", List.of("Run", "System", "Before", "After", "Steal"), loadRows()));
        return adoc.toString();
    }

    // ---------------------------------------------------------------- charts

    private void charts(Path dir) throws IOException {
        throughputChart(dir.resolve(IMAGES[0]));
        latenessChart(dir.resolve(IMAGES[1]));
        cpuChart(dir.resolve(IMAGES[2]));
        memoryChart(dir.resolve(IMAGES[3]));
        scaleChart(dir.resolve(IMAGES[4]));
    }

    private static CategoryChart chart(String title, String yTitle, String pattern) {
        CategoryChart chart = new CategoryChartBuilder().width(1000).height(480).title(title).yAxisTitle(yTitle).build();
        chart.getStyler().setDecimalPattern(pattern);
        chart.getStyler().setYAxisDecimalPattern(pattern);
        // Outside the plot: inside, the legend hides the tops of the bars.
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setLabelsVisible(true);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setAvailableSpaceFill(0.8);
        return chart;
    }

    /** A logarithmic axis from 100 up: bars start at the axis minimum, which must be above zero. */
    private static void logarithmic(CategoryChart chart) {
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisMin(100.0);
    }

    private static void save(CategoryChart chart, Path file) throws IOException {
        if (chart.getSeriesMap().isEmpty()) {
            return;
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /**
     * Adds one series per system, with a value per category. A system measured in no category is left out; on a
     * logarithmic axis, so is one missing a category (it cannot be drawn as zero there).
     */
    private static void series(CategoryChart chart, List<String> categories, Map<String, double[]> bySystem) {
        boolean logarithmic = chart.getStyler().isYAxisLogarithmic();
        bySystem.forEach((name, values) -> {
            if (logarithmic ? Arrays.stream(values).allMatch(v -> v > 0) : Arrays.stream(values).anyMatch(v -> v > 0)) {
                // A category the system was not measured in is drawn as no bar at all.
                List<Double> ys = Arrays.stream(values).mapToObj(v -> v > 0 ? v : null).toList();
                chart.addSeries(name, categories, ys).setFillColor(color(name));
            }
        });
    }

    /** The same color for a system in every chart. */
    private static Color color(String seriesName) {
        if (seriesName.startsWith("BullMQ")) {
            return new Color(0xE0533B);
        }
        if (seriesName.startsWith("Redisson")) {
            return new Color(0x8E8E8E);
        }
        if (seriesName.startsWith("Raw")) {
            return new Color(0x3FAF6B);
        }
        // This extension with a schedule linger (W3L): its own shade, told apart from the defaults' bar next to it.
        if (seriesName.endsWith(LINGER_SERIES)) {
            return new Color(0x9CC8F5);
        }
        return new Color(0x4695EB);
    }

    private double value(OptionalDouble value) {
        return value.orElse(0);
    }

    private void throughputChart(Path file) throws IOException {
        CategoryChart chart = chart("Throughput (jobs/s, log scale; higher is better)", "jobs/s (log scale)", "#,##0");
        logarithmic(chart);
        List<String> categories = List.of("W1 enqueue", "W2 drain");
        Map<String, double[]> bySystem = new LinkedHashMap<>();
        for (String system : List.of(US, "bullmq", "redisson")) {
            bySystem.put(name(system), new double[] { value(median(system, "W1", "rate")),
                    value(median(system, "W2", "rate")) });
        }
        bySystem.put("Raw: ZADD / claim script", new double[] { value(median("raw", "W1", "rate", variantIs("zadd"))),
                value(median("raw", "W2", "rate")) });
        series(chart, categories, bySystem);
        save(chart, file);
    }

    private void latenessChart(Path file) throws IOException {
        CategoryChart chart = chart("W3 lateness: handler start − due time (ms; lower is better)", "ms", "#,##0.0");
        List<String> categories = List.of("p50", "p99", "max");
        Map<String, double[]> bySystem = new LinkedHashMap<>();
        for (String system : List.of(US, "bullmq", "redisson")) {
            bySystem.put(name(system), new double[] { value(median(system, "W3", "p50Ms")),
                    value(median(system, "W3", "p99Ms")), value(median(system, "W3", "maxMs")) });
        }
        if (median(US, "W3L", "p99Ms").isPresent()) {
            bySystem.put(name(US) + LINGER_SERIES, new double[] { value(median(US, "W3L", "p50Ms")),
                    value(median(US, "W3L", "p99Ms")), value(median(US, "W3L", "maxMs")) });
        }
        series(chart, categories, bySystem);
        save(chart, file);
    }

    private void cpuChart(Path file) throws IOException {
        CategoryChart chart = chart("Redis CPU per job (µs; lower is better)", "µs per job", "#,##0.0");
        List<String> categories = List.of("W1 enqueue", "W2 drain", "W3 lateness");
        Map<String, double[]> bySystem = new LinkedHashMap<>();
        for (String system : List.of(US, "bullmq", "redisson")) {
            bySystem.put(name(system), new double[] { value(median(system, "W1", "cpuPerJobUs")),
                    value(median(system, "W2", "cpuPerJobUs")), value(median(system, "W3", "cpuPerJobUs")) });
        }
        if (median(US, "W3L", "cpuPerJobUs").isPresent()) {
            bySystem.put(name(US) + LINGER_SERIES, new double[] { 0, 0,
                    value(median(US, "W3L", "cpuPerJobUs")) });
        }
        bySystem.put("Raw: ZADD / claim script", new double[] {
                value(median("raw", "W1", "cpuPerJobUs", variantIs("zadd"))), value(median("raw", "W2", "cpuPerJobUs")),
                0 });
        series(chart, categories, bySystem);
        save(chart, file);
    }

    private void memoryChart(Path file) throws IOException {
        CategoryChart chart = chart("W4 Redis memory per pending job (bytes; lower is better)", "bytes per job", "#,##0");
        List<String> categories = List.of("W4 memory");
        Map<String, double[]> bySystem = new LinkedHashMap<>();
        for (String system : SYSTEMS) {
            String label = system.equals("raw") ? "Raw: zset + hash" : name(system);
            bySystem.put(label, new double[] { value(median(system, "W4", "bytesPerJob")) });
        }
        series(chart, categories, bySystem);
        save(chart, file);
    }

    private void scaleChart(Path file) throws IOException {
        CategoryChart chart = chart("W6 claim rate against pending jobs (jobs/s, log scale; flat is good)",
                "jobs/s (log scale)",
                "#,##0");
        logarithmic(chart);
        List<Long> sizes = new ArrayList<>(scaleSizes());
        List<String> categories = sizes.stream().map(s -> count(s) + " pending").toList();
        Map<String, double[]> bySystem = new LinkedHashMap<>();
        for (String system : List.of(US, "raw")) {
            bySystem.put(system.equals("raw") ? "Raw: claim script" : name(system), sizes.stream()
                    .mapToDouble(s -> value(median(system, "W6", "rate", pendingIs(s)))).toArray());
        }
        if (!categories.isEmpty()) {
            series(chart, categories, bySystem);
            save(chart, file);
        }
    }
}
