package io.quarkiverse.delayedjobs.it.instances;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three instances of the application, each its own JVM, share one schedule firing every second: every occurrence is
 * delivered exactly once and none is missed, also when one instance is stopped midway.
 */
class SeveralInstancesIT {

    final List<Process> processes = new ArrayList<>();
    final Path dir = Path.of("target", "several-instances");
    int port;

    @BeforeEach
    void startRedis() throws IOException {
        Files.createDirectories(dir);
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        processes.add(start(dir.resolve("redis.log"), "redis-server", "--port", String.valueOf(port), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        await().atMost(Duration.ofSeconds(10)).until(() -> "PONG".equals(redis("PING")));
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        // Instances first, Redis (the first process) last.
        for (int i = processes.size() - 1; i >= 0; i--) {
            processes.get(i).destroy();
            processes.get(i).waitFor(30, TimeUnit.SECONDS);
        }
    }

    Process start(Path log, String... command) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    Process instance(String name) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = start(dir.resolve(name + ".log"), java, "-Dinstance.name=" + name,
                "-Dquarkus.redis.hosts=redis://127.0.0.1:" + port, "-jar",
                new File(System.getProperty("instances.app")).getAbsolutePath());
        processes.add(p);
        return p;
    }

    String redis(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-p", String.valueOf(port)));
        command.addAll(List.of(args));
        Process cli = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        cli.waitFor(10, TimeUnit.SECONDS);
        return out;
    }

    long ticks() throws IOException, InterruptedException {
        return Long.parseLong(redis("LLEN", "ticks"));
    }

    List<Tick> all() throws IOException, InterruptedException {
        return List.of(redis("LRANGE", "ticks", "0", "-1").split("\n")).stream().map(Tick::parse).toList();
    }

    record Tick(long dueMs, String instance, int attempt) {
        static Tick parse(String line) {
            String[] parts = line.split(" ");
            return new Tick(Long.parseLong(parts[0]), parts[1], Integer.parseInt(parts[2]));
        }
    }

    @Test
    void everyOccurrenceRunsOnceAcrossInstancesAlsoWhenOneStops() throws Exception {
        instance("one");
        Process two = instance("two");
        instance("three");
        await().atMost(Duration.ofSeconds(60)).until(() -> ticks() >= 3);
        long beforeStop = ticks();
        // Which instance wins an occurrence is a race: wait until instance two has won one, so that stopping it
        // takes a worker that was taking part.
        await().atMost(Duration.ofSeconds(60)).until(() -> ticks() >= beforeStop + 5
                && all().stream().anyMatch(t -> t.instance().equals("two")));

        // Its stop begins a little after the signal: an occurrence due until a second later may still start there.
        long sigtermAtMs = System.currentTimeMillis();
        two.destroy(); // SIGTERM: a graceful stop
        assertTrue(two.waitFor(30, TimeUnit.SECONDS), "instance two did not stop");
        long stoppedAtMs = System.currentTimeMillis();
        long afterStop = ticks();
        await().atMost(Duration.ofSeconds(30)).until(() -> ticks() >= afterStop + 6);

        List<Tick> ticks = all();
        Map<Long, List<Tick>> byOccurrence = ticks.stream()
                .collect(Collectors.groupingBy(Tick::dueMs, TreeMap::new, Collectors.toList()));
        byOccurrence.forEach((due, delivered) -> assertEquals(1, delivered.size(), "occurrence " + due
                + " delivered " + delivered));
        List<Long> occurrences = new ArrayList<>(byOccurrence.keySet());
        for (int i = 1; i < occurrences.size(); i++) {
            assertEquals(1000, occurrences.get(i) - occurrences.get(i - 1), "missed an occurrence after "
                    + occurrences.get(i - 1) + " in " + occurrences);
        }
        assertTrue(occurrences.size() >= 14, "only " + occurrences.size() + " occurrences");
        assertFalse(ticks.stream().anyMatch(t -> t.instance().equals("two") && t.dueMs() > sigtermAtMs + 1000),
                "instance two started an occurrence due more than a second after it was told to stop");
        assertTrue(ticks.stream().filter(t -> t.dueMs() > stoppedAtMs).map(Tick::instance).distinct().count() >= 1);
    }
}
