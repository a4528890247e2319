package io.quarkiverse.delayedjobs.deployment.devservices;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * A dev-mode JVM killed with {@code kill -9} runs no shutdown hook. Its {@code redis-server} must not run on, with its
 * temporary directory, until someone finds and removes them by hand.
 */
public class LocalRedisServerKilledJvmTest {

    @Test
    void theServerOfAJvmKilledWithKill9StopsAndItsDirectoryGoes() throws Exception {
        Process jvm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.util.logging.manager=org.jboss.logmanager.LogManager", "-cp",
                System.getProperty("java.class.path"), Application.class.getName())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        int port = -1;
        Path dir = null;
        try {
            String[] started;
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8))) {
                started = out.readLine().split(" ", 2);
            }
            port = Integer.parseInt(started[0]);
            dir = Path.of(started[1]);
            assertTrue(answers(port), "the server answers before the kill");
            assertTrue(Files.isDirectory(dir), "its directory exists before the kill");

            jvm.destroyForcibly();
            assertTrue(jvm.waitFor(10, TimeUnit.SECONDS), "the JVM was killed");
            assertEquals(137, jvm.exitValue(), "SIGKILL, with no shutdown hook run");

            int killedPort = port;
            Path killedDir = dir;
            await().atMost(Duration.ofSeconds(10)).until(() -> !answers(killedPort) && !Files.exists(killedDir));
        } finally {
            jvm.destroyForcibly();
            if (port > 0 && answers(port)) {
                // What the test found wrong: not left behind for the next runs.
                try (Socket socket = new Socket("127.0.0.1", port)) {
                    socket.getOutputStream().write("SHUTDOWN NOSAVE\r\n".getBytes(StandardCharsets.US_ASCII));
                }
            }
            if (dir != null) {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                } catch (IOException e) {
                    // gone, as it should be
                }
            }
        }
    }

    private static boolean answers(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Starts a server as the Dev Service does and says where. */
    public static final class Application {
        public static void main(String[] args) throws Exception {
            LocalRedisServer server = new LocalRedisServer(
                    RedisServerDevServicesProcessor.findOnPath("redis-server").orElseThrow(), false);
            server.start();
            System.out.println(server.port() + " " + server.dir());
            System.out.flush();
            // Until killed; or until the test's JVM ends, which closes this input, so that no JVM is left behind.
            System.in.read();
        }
    }
}
