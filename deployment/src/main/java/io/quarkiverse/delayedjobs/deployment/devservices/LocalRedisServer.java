package io.quarkiverse.delayedjobs.deployment.devservices;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.stream.Stream;

import org.jboss.logging.Logger;

import io.quarkus.deployment.builditem.Startable;

/**
 * A throwaway {@code redis-server} process: bound to 127.0.0.1 on a free port, without persistence, in a temporary
 * directory that is removed when it stops. For a cluster client it is a Redis Cluster of one node that serves every
 * slot: a cluster client refuses a server without cluster support.
 */
final class LocalRedisServer implements Startable {

    private static final Logger LOG = Logger.getLogger(LocalRedisServer.class);
    private static final long STARTUP_TIMEOUT_MS = 10_000;
    private static final long STOP_TIMEOUT_MS = 5_000;
    /** Another process may take the free port between our probe and the server's bind. */
    private static final int PORT_ATTEMPTS = 3;
    /** A cluster node's bus port is its port plus this. */
    static final int CLUSTER_BUS_OFFSET = 10_000;
    private static final int CLUSTER_PORT_DRAWS = 100;

    private final Path executable;
    private final boolean cluster;
    private Path dir;
    private Process process;
    /** Stops the server when this JVM ends without its shutdown hook (a {@code kill -9}); null where no /bin/sh is. */
    private Process watchdog;
    private int port;
    private Thread shutdownHook;
    /** Set once the server is stopped, or the JVM stops: no server is started after that. */
    private boolean stopped;

    LocalRedisServer(Path executable, boolean cluster) {
        this.executable = executable;
        this.cluster = cluster;
    }

    @Override
    public void start() {
        try {
            dir = Files.createTempDirectory("quarkus-delayed-jobs-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create a directory for " + executable, e);
        }
        // A JVM that exits without closing its Dev Services, or is stopped while the server starts, must not leave it
        // behind.
        shutdownHook = new Thread(this::stopProcess, "delayed-jobs-redis-server-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try {
            for (int attempt = 1;; attempt++) {
                try {
                    launch();
                    return;
                } catch (PortTaken e) {
                    if (attempt == PORT_ATTEMPTS) {
                        throw e;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            close();
            deleteDir();
            throw e instanceof IOException io ? new UncheckedIOException("Could not start " + executable, io)
                    : (RuntimeException) e;
        }
    }

    /** Another process took the free port (or the cluster bus port) between our probe and the server's bind. */
    private static final class PortTaken extends IllegalStateException {
        PortTaken(String message) {
            super(message);
        }
    }

    private void launch() throws IOException {
        port = cluster ? freeClusterPort(LocalRedisServer::freePort) : freePort();
        Path log = dir.resolve("redis.log");
        List<String> command = new ArrayList<>(List.of(executable.toString(), "--port", String.valueOf(port), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        if (cluster) {
            command.addAll(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-announce-ip", "127.0.0.1"));
        }
        synchronized (this) {
            if (stopped) {
                // The shutdown hook ran before this start: a server started now would outlive the JVM.
                throw new IllegalStateException("Stopped before " + executable + " started");
            }
            stopWatchdog();
            process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            watchdog = watchdog(process.pid(), dir);
        }
        long deadline = System.currentTimeMillis() + STARTUP_TIMEOUT_MS;
        awaitUntil(() -> answersPing() && isOurs(), deadline, log);
        // Before the cluster's slots: a Redis 6 refuses CLUSTER ADDSLOTSRANGE, and would say nothing clearer.
        String version = versionOf(call("INFO server"));
        if (!atLeast7(version)) {
            throw new IllegalStateException(executable + " is Redis " + version + ", and Delayed Jobs needs Redis 7.0 or"
                    + " later: put a newer redis-server on the PATH, or set quarkus.redis.hosts");
        }
        if (cluster) {
            awaitUntil(this::servesEverySlot, deadline, log);
        }
    }

    /**
     * A shell that reads its input, a pipe only this JVM holds open, until the end: the JVM's end, however it ends,
     * closes the pipe, and the shell then stops the server and removes its directory. {@code read} is a built-in, so a
     * normal stop that kills the shell leaves no child of it behind.
     */
    private static Process watchdog(long pid, Path dir) throws IOException {
        Path shell = Path.of("/bin/sh");
        if (!Files.isExecutable(shell)) {
            return null;
        }
        String script = "while read -r line; do :; done; kill " + pid + " 2>/dev/null;"
                + " n=0; while kill -0 " + pid + " 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done;"
                + " rm -rf \"$0\"";
        return new ProcessBuilder(shell.toString(), "-c", script, dir.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** Before each launch and at a stop: a watchdog left behind would kill whatever process later has its pid. */
    private void stopWatchdog() {
        if (watchdog != null) {
            watchdog.destroyForcibly();
            watchdog = null;
        }
    }

    /** Waits until {@code ready}; a server that exits or is not ready by {@code deadline} fails the start. */
    private void awaitUntil(BooleanSupplier ready, long deadline, Path log) throws IOException {
        while (!ready.getAsBoolean()) {
            if (!process.isAlive() || System.currentTimeMillis() > deadline) {
                process.destroyForcibly();
                String said = Files.readString(log, StandardCharsets.UTF_8).strip();
                String message = executable + " did not start on port " + port + ": " + said;
                throw said.contains("Address already in use") ? new PortTaken(message)
                        : new IllegalStateException(message);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for " + executable, e);
            }
        }
    }

    /** The {@code redis_version} of an {@code INFO server} answer, or null. */
    static String versionOf(String info) {
        if (info != null) {
            for (String line : info.split("\\r?\\n")) {
                if (line.startsWith("redis_version:")) {
                    return line.substring("redis_version:".length()).strip();
                }
            }
        }
        return null;
    }

    /** Whether {@code version} is 7.0 or later; an unknown one is let through, for the scripts to tell. */
    static boolean atLeast7(String version) {
        int dot = version == null ? -1 : version.indexOf('.');
        try {
            return dot < 0 || Integer.parseInt(version.substring(0, dot)) >= 7;
        } catch (NumberFormatException e) {
            return true;
        }
    }

    private boolean answersPing() {
        return "+PONG".equals(call("PING"));
    }

    /**
     * Whether the server that answers on the port is the one started here: another application that picked the same
     * free port may have bound it first, and then this process fails to bind it while the other server answers.
     */
    private boolean isOurs() {
        String reply = call("CONFIG GET dir");
        try {
            return reply != null && reply.equals("dir\n" + dir.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Whether the node of a cluster answers with every slot assigned to it and its cluster state {@code ok}: the
     * slots are given to it on the first call that finds none.
     */
    private boolean servesEverySlot() {
        String info = call("CLUSTER INFO");
        if (info == null) {
            return false;
        }
        if (info.contains("cluster_slots_assigned:0\r\n")) {
            String reply = call("CLUSTER ADDSLOTSRANGE 0 16383");
            if (reply != null && reply.startsWith("-")) {
                process.destroyForcibly();
                throw new IllegalStateException(executable + " refused to serve every slot of its cluster: " + reply);
            }
            return false;
        }
        return info.contains("cluster_state:ok\r\n");
    }

    /**
     * Sends an inline command and returns its reply as text (a bulk reply without its length line, the elements of an
     * array on lines of their own), or null.
     */
    private String call(String command) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write((command + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            return reply(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    private static String reply(InputStream in) throws IOException {
        String line = line(in);
        if (line == null || !(line.startsWith("$") || line.startsWith("*"))) {
            return line;
        }
        int length = Integer.parseInt(line.substring(1));
        if (length < 0) {
            return null;
        }
        if (line.startsWith("*")) {
            List<String> elements = new ArrayList<>();
            for (int i = 0; i < length; i++) {
                elements.add(reply(in));
            }
            return String.join("\n", elements);
        }
        byte[] body = in.readNBytes(length);
        line(in);
        return body.length < length ? null : new String(body, StandardCharsets.UTF_8);
    }

    /** A line of the reply without its CRLF, or null at the end of the stream. */
    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                return null;
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    int port() {
        return port;
    }

    /** The server's directory, removed when it stops. */
    Path dir() {
        return dir;
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
        stopped = true;
        stopWatchdog();
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

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not find a free port", e);
        }
    }

    /**
     * A port from {@code freePorts} whose cluster bus port, {@value #CLUSTER_BUS_OFFSET} above it, exists and is free:
     * a cluster node binds both, and {@code redis-server} refuses a port above 55535. The ports the system hands out
     * reach 60999 on Linux, so about one in five would fail.
     */
    static int freeClusterPort(IntSupplier freePorts) {
        for (int draw = 0; draw < CLUSTER_PORT_DRAWS; draw++) {
            int port = freePorts.getAsInt();
            int bus = port + CLUSTER_BUS_OFFSET;
            if (bus <= 65535) {
                try (ServerSocket probe = new ServerSocket(bus, 50, InetAddress.getLoopbackAddress())) {
                    return port;
                } catch (IOException taken) {
                    // another draw
                }
            }
        }
        throw new IllegalStateException("Found no free port of at most " + (65535 - CLUSTER_BUS_OFFSET)
                + " whose cluster bus port (" + CLUSTER_BUS_OFFSET + " above it) is free, in " + CLUSTER_PORT_DRAWS
                + " draws");
    }
}
