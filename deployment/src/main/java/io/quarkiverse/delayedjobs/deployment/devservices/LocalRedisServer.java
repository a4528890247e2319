package io.quarkiverse.delayedjobs.deployment.devservices;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jboss.logging.Logger;

import io.quarkus.deployment.builditem.Startable;

/**
 * A throwaway {@code redis-server} process: bound to 127.0.0.1 on a free port, without persistence, in a temporary
 * directory that is removed when it stops.
 */
final class LocalRedisServer implements Startable {

    private static final Logger LOG = Logger.getLogger(LocalRedisServer.class);
    private static final long STARTUP_TIMEOUT_MS = 10_000;
    private static final long STOP_TIMEOUT_MS = 5_000;
    /** Another process may take the free port between our probe and the server's bind. */
    private static final int PORT_ATTEMPTS = 3;

    private final Path executable;
    private Path dir;
    private Process process;
    private int port;
    private Thread shutdownHook;

    LocalRedisServer(Path executable) {
        this.executable = executable;
    }

    @Override
    public void start() {
        try {
            dir = Files.createTempDirectory("quarkus-delayed-jobs-redis-");
            IllegalStateException failure = null;
            for (int attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
                try {
                    launch();
                    return;
                } catch (IllegalStateException e) {
                    failure = e;
                }
            }
            deleteDir();
            throw failure;
        } catch (IOException e) {
            deleteDir();
            throw new UncheckedIOException("Could not start " + executable, e);
        }
    }

    private void launch() throws IOException {
        port = freePort();
        Path log = dir.resolve("redis.log");
        List<String> command = List.of(executable.toString(), "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString());
        process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        long deadline = System.currentTimeMillis() + STARTUP_TIMEOUT_MS;
        while (!answersPing()) {
            if (!process.isAlive() || System.currentTimeMillis() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException(executable + " did not start on port " + port + ": "
                        + Files.readString(log, StandardCharsets.UTF_8).strip());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                throw new IllegalStateException("Interrupted while waiting for " + executable, e);
            }
        }
        // A JVM that exits without closing its Dev Services must not leave the server behind.
        shutdownHook = new Thread(this::stopProcess, "delayed-jobs-redis-server-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    private boolean answersPing() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = in.readNBytes(7);
            return "+PONG\r\n".equals(new String(reply, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            return false;
        }
    }

    int port() {
        return port;
    }

    String url() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public String getConnectionInfo() {
        return url();
    }

    @Override
    public String getContainerId() {
        return null;
    }

    @Override
    public void close() {
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // The JVM is already shutting down and runs the hook itself.
            }
            shutdownHook = null;
        }
        stopProcess();
    }

    private synchronized void stopProcess() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        process = null;
        LOG.debugf("Stopped %s on port %d", executable, port);
        deleteDir();
    }

    private void deleteDir() {
        if (dir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.debugf(e, "Could not remove %s", dir);
        }
        dir = null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
