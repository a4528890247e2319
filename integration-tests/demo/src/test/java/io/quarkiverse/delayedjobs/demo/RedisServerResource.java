package io.quarkiverse.delayedjobs.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.awaitility.Awaitility;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Starts {@code redis-server} from the PATH on a free port, without persistence and in a temporary directory of its
 * own, for the tests of the demo, and points {@code quarkus.redis.hosts} at it.
 */
public class RedisServerResource implements QuarkusTestResourceLifecycleManager {

    private Process process;
    private Path dir;

    @Override
    public Map<String, String> start() {
        int port;
        try {
            port = freePort();
            dir = Files.createTempDirectory("demo-redis-");
            process = new ProcessBuilder(List.of("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--dir", dir.toString()))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start redis-server from the PATH; install it with"
                    + " apt-get install -y redis-server", e);
        }
        Awaitility.await("redis-server accepting connections on port " + port).atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("redis-server exited: "
                                + Files.readString(dir.resolve("redis.log")));
                    }
                    return accepts(port);
                });
        return Map.of("quarkus.redis.hosts", "redis://127.0.0.1:" + port);
    }

    @Override
    public void stop() {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static boolean accepts(int port) {
        try (Socket ignored = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
