package io.quarkiverse.delayedjobs.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.awaitility.Awaitility;

/**
 * A real {@code redis-server} from the PATH, started once per test JVM on a free port and stopped when the JVM
 * exits. Tests keep apart by using their own queue names or key prefix.
 */
public final class RedisTestServer {

    private static final String SHARED_URL = "delayed-jobs.test.redis-url";

    private final int port;
    private final Process process;
    private final Path dir;

    private RedisTestServer(List<String> extraArgs) {
        try {
            this.port = freePort();
            this.dir = Files.createTempDirectory("redis-test");
            List<String> command = new ArrayList<>(List.of("redis-server", "--port", String.valueOf(port),
                    "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()));
            command.addAll(extraArgs);
            this.process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start redis-server from the PATH (apt-get install redis-server)",
                    e);
        }
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(this::accepts);
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop));
    }

    /**
     * The URL of the server shared by the tests of this JVM. Kept in a system property because a QuarkusUnitTest
     * class is loaded by two class loaders, each with its own statics.
     */
    public static synchronized String sharedUrl() {
        String url = System.getProperty(SHARED_URL);
        if (url == null) {
            url = new RedisTestServer(List.of()).url();
            System.setProperty(SHARED_URL, url);
        }
        return url;
    }

    /** A server of its own, for tests that stop or restart it. */
    public static RedisTestServer start(String... extraArgs) {
        return new RedisTestServer(List.of(extraArgs));
    }

    public int port() {
        return port;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** Sends one command to the server at {@code url} and returns its first reply line. */
    public static String command(String url, String... args) {
        int port = Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
        try (Socket socket = new Socket("127.0.0.1", port)) {
            StringBuilder request = new StringBuilder("*" + args.length + "\r\n");
            for (String arg : args) {
                request.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg)
                        .append("\r\n");
            }
            socket.getOutputStream().write(request.toString().getBytes(StandardCharsets.UTF_8));
            return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8)).readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void stop() {
        process.destroy();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean accepts() {
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
