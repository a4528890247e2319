package io.quarkiverse.delayedjobs.test;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.awaitility.Awaitility;

import io.quarkus.redis.datasource.RedisDataSource;

/**
 * Real {@code redis-server}s from the PATH, each started on a free port on first use and stopped when the test JVM
 * exits. Most tests share one and keep apart by their key prefix; a test that shuts its server down gets its own.
 */
public final class RedisTestServer {

    /** Redis Cluster nodes talk to each other on their port plus this. */
    private static final int CLUSTER_BUS_OFFSET = 10000;

    private final int port;
    private final Process process;
    private final Path dir;

    private RedisTestServer(String... options) {
        this(freePort(), temporaryDirectory("redis-test"), options);
    }

    private RedisTestServer(int port, Path dir, String... options) {
        this(port, dir, concat(List.of("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1", "--save",
                "", "--appendonly", "no", "--dir", dir.toString()), options));
    }

    /** Runs {@code command}, which starts a server listening on {@code port} with its files in {@code dir}. */
    private RedisTestServer(int port, Path dir, List<String> command) {
        this.port = port;
        this.dir = dir;
        try {
            this.process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start redis-server from the PATH (apt-get install redis-server)",
                    e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop));
        // Another process may have taken the port since it was found free: then this server exits, and the one that
        // answers is not it.
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !process.isAlive() || accepts(port));
        String info = process.isAlive() ? command(url(), "INFO", "server") : "exited";
        // A server with a password tells nothing before AUTH: that it is still alive has to do.
        String answering = info.startsWith("-NOAUTH") ? String.valueOf(process.pid())
                : info.replaceAll("(?s).*process_id:(\\d+).*", "$1");
        if (!process.isAlive() || !answering.equals(String.valueOf(process.pid()))) {
            throw new IllegalStateException("redis-server on port " + port + " did not start (" + command
                    + "), its log: " + log());
        }
        System.setProperty("delayed-jobs.test.redis-pid." + url(), String.valueOf(process.pid()));
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("redis.log"));
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** The URL of the server shared by most tests of this JVM. */
    public static String sharedUrl() {
        return sharedUrl("shared");
    }

    /**
     * The URL of the server of this name, started on first use. Kept in a system property because a QuarkusUnitTest
     * class is loaded by two class loaders, each with its own statics.
     */
    public static synchronized String sharedUrl(String name) {
        String property = "delayed-jobs.test.redis-url." + name;
        String url = System.getProperty(property);
        if (url == null) {
            url = new RedisTestServer().url();
            System.setProperty(property, url);
        }
        return url;
    }

    /**
     * The {@code rediss://} URL of the TLS port of a server that also has a plain port ({@link #tlsServerPlainUrl},
     * for the tests' own commands), started on first use. Its certificate, self-signed for 127.0.0.1, is the PEM file
     * {@link #tlsServerCertificate}: trust it to connect.
     */
    public static synchronized String tlsUrl(String name) {
        String property = "delayed-jobs.test.redis-tls-url." + name;
        String url = System.getProperty(property);
        if (url == null) {
            Path dir = temporaryDirectory("redis-tls-test");
            Path certificate = selfSignedCertificate(dir);
            int tlsPort = freePort();
            RedisTestServer server = new RedisTestServer(freePort(), dir, "--tls-port", String.valueOf(tlsPort),
                    "--tls-cert-file", certificate.toString(), "--tls-key-file", dir.resolve("key.pem").toString(),
                    "--tls-ca-cert-file", certificate.toString(), "--tls-auth-clients", "no");
            url = "rediss://127.0.0.1:" + tlsPort;
            System.setProperty(property, url);
            System.setProperty(property + ".plain", server.url());
            System.setProperty(property + ".certificate", certificate.toString());
        }
        return url;
    }

    /** The plain URL of the server of {@link #tlsUrl}{@code (name)}. */
    public static String tlsServerPlainUrl(String name) {
        tlsUrl(name);
        return System.getProperty("delayed-jobs.test.redis-tls-url." + name + ".plain");
    }

    /** The certificate (a PEM file) of the server of {@link #tlsUrl}{@code (name)}. */
    public static String tlsServerCertificate(String name) {
        tlsUrl(name);
        return System.getProperty("delayed-jobs.test.redis-tls-url." + name + ".certificate");
    }

    /**
     * Makes a key pair and a certificate for 127.0.0.1 with the JDK's keytool, and writes them as the PEM files
     * {@code cert.pem} and {@code key.pem} that redis-server reads; returns the certificate's path.
     */
    private static Path selfSignedCertificate(Path dir) {
        Path store = dir.resolve("redis.p12");
        char[] password = "changeit".toCharArray();
        try {
            Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                    "-genkeypair", "-alias", "redis", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname",
                    "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12", "-keystore",
                    store.toString(), "-storepass", "changeit").redirectErrorStream(true).start();
            String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                throw new IllegalStateException("keytool failed: " + output);
            }
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                keys.load(in, password);
            }
            Base64.Encoder base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
            Path certificate = dir.resolve("cert.pem");
            Files.writeString(certificate, "-----BEGIN CERTIFICATE-----\n"
                    + base64.encodeToString(keys.getCertificate("redis").getEncoded()) + "\n-----END CERTIFICATE-----\n");
            Files.writeString(dir.resolve("key.pem"), "-----BEGIN PRIVATE KEY-----\n"
                    + base64.encodeToString(keys.getKey("redis", password).getEncoded()) + "\n-----END PRIVATE KEY-----\n");
            return certificate;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The URL, with {@code password} in it, of a cluster-enabled server that requires that password and serves no slot
     * (no cluster was created), started on first use.
     */
    public static synchronized String slotlessClusterNodeUrl(String password) {
        String property = "delayed-jobs.test.redis-slotless-url";
        String url = System.getProperty(property);
        if (url == null) {
            url = new RedisTestServer(freeClusterPort(), temporaryDirectory("redis-test"), "--cluster-enabled", "yes",
                    "--requirepass", password).url().replace("redis://", "redis://:" + password + "@");
            System.setProperty(property, url);
        }
        return url;
    }

    /**
     * The URLs of the nodes of a Redis Cluster of three masters on this host (every slot served), started on first use,
     * as {@code quarkus.redis.hosts} takes them.
     */
    public static synchronized String clusterUrls() {
        String property = "delayed-jobs.test.redis-cluster-urls";
        String urls = System.getProperty(property);
        if (urls == null) {
            urls = String.join(",", startCluster(3, 0));
            System.setProperty(property, urls);
        }
        return urls;
    }

    /**
     * The URLs of the nodes of a Redis Cluster of {@code masters} masters and no replica, started on first use; each
     * test that reshapes the cluster needs its own {@code name}.
     */
    public static synchronized List<String> clusterUrls(String name, int masters) {
        String property = "delayed-jobs.test.redis-cluster-urls." + name;
        String urls = System.getProperty(property);
        if (urls == null) {
            urls = String.join(",", startCluster(masters, 0));
            System.setProperty(property, urls);
        }
        return List.of(urls.split(","));
    }

    /**
     * The URLs of the nodes of a Redis Cluster of three masters, each with a replica that takes over a master that has
     * not answered for a second, started on first use; each test that fails nodes needs its own {@code name}.
     */
    public static List<String> clusterWithReplicasUrls(String name) {
        return clusterWithReplicasUrls(name, 1000);
    }

    /** As {@link #clusterWithReplicasUrls(String)}, with a replica taking over after {@code nodeTimeoutMs}. */
    public static synchronized List<String> clusterWithReplicasUrls(String name, int nodeTimeoutMs) {
        String property = "delayed-jobs.test.redis-cluster-with-replicas-urls." + name;
        String urls = System.getProperty(property);
        if (urls == null) {
            urls = String.join(",", startCluster(3, 1, "--cluster-node-timeout", String.valueOf(nodeTimeoutMs)));
            System.setProperty(property, urls);
        }
        return List.of(urls.split(","));
    }

    /** The node of {@code nodes} that replicates {@code master}. */
    public static String replicaOf(List<String> nodes, String master) {
        String port = master.substring(master.lastIndexOf(':') + 1);
        return nodes.stream().filter(url -> command(url, "INFO", "replication").contains("master_port:" + port))
                .findFirst().orElseThrow();
    }

    /** The URLs of the nodes of a new cluster, once every node sees it whole. */
    private static List<String> startCluster(int masters, int replicasPerMaster, String... options) {
        List<RedisTestServer> nodes = new ArrayList<>();
        for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
            nodes.add(new RedisTestServer(freeClusterPort(), temporaryDirectory("redis-test"), concat(List.of(
                    "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"), options).toArray(String[]::new)));
        }
        List<String> create = new ArrayList<>(List.of("create"));
        nodes.forEach(node -> create.add("127.0.0.1:" + node.port));
        create.addAll(List.of("--cluster-replicas", String.valueOf(replicasPerMaster)));
        clusterTool(create.toArray(String[]::new));
        List<String> urls = nodes.stream().map(RedisTestServer::url).toList();
        for (String url : urls) {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> command(url, "CLUSTER", "INFO")
                    .contains("cluster_state:ok")
                    && (isMaster(url) || command(url, "INFO", "replication").contains("master_link_status:up")));
        }
        return urls;
    }

    /**
     * Runs {@code redis-cli --cluster} with these arguments, answering yes to its questions, as an operator reshapes a
     * cluster; fails with its output when it fails.
     */
    public static void clusterTool(String... args) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster"));
        command.addAll(List.of(args));
        command.add("--cluster-yes");
        try {
            Path output = Files.createTempFile("redis-cli-cluster", ".log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                    .start();
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException(command + " failed: " + Files.readString(output));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** How many clients of the server at {@code url} subscribe to something (Sentinel's own included). */
    public static long subscribers(String url) {
        return command(url, "CLIENT", "LIST", "TYPE", "pubsub").lines().filter(line -> line.startsWith("id=")).count();
    }

    /** The cluster node id of the server at {@code url}. */
    public static String nodeId(String url) {
        return command(url, "CLUSTER", "MYID");
    }

    /** The {@code host:port} of the server at {@code url}, as {@code redis-cli --cluster} takes it. */
    public static String hostAndPort(String url) {
        return url.substring(url.lastIndexOf('/') + 1);
    }

    /** Waits until the server at {@code url} is a replica whose link to its master is up (it has synchronised). */
    public static void awaitReplicating(String url, Duration atMost) {
        Awaitility.await().atMost(atMost).until(() -> {
            String replication = command(url, "INFO", "replication");
            return replication.contains("role:slave") && replication.contains("master_link_status:up");
        });
    }

    /** Stops the process of the server at {@code url} (SIGSTOP): it still accepts connections, and answers nothing. */
    public static void freeze(String url) {
        signal(url, "-STOP");
    }

    /** Resumes a server {@link #freeze(String) frozen} before. */
    public static void thaw(String url) {
        signal(url, "-CONT");
    }

    private static void signal(String url, String signal) {
        String pid = System.getProperty("delayed-jobs.test.redis-pid." + url);
        try {
            Process kill = new ProcessBuilder("kill", signal, pid).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The URLs of a master, its replica and the Sentinel that watches them as {@code mymaster}. */
    public record SentinelSetup(String masterUrl, String replicaUrl, List<String> sentinelUrls) {

        /** The first Sentinel, the only one unless more were asked for. */
        public String sentinelUrl() {
            return sentinelUrls.get(0);
        }
    }

    /**
     * A master, its replica and one Sentinel watching them as {@code mymaster} (quorum 1), started on first use; each
     * test that fails them over needs its own {@code name}. Sentinel rewrites its configuration file, so it gets one of
     * its own in its directory.
     */
    public static SentinelSetup sentinel(String name) {
        return sentinel(name, 1);
    }

    /** As {@link #sentinel(String)}, with {@code sentinels} Sentinels, each of which may fail the master over alone. */
    public static synchronized SentinelSetup sentinel(String name, int sentinels) {
        String property = "delayed-jobs.test.redis-sentinel." + name;
        String urls = System.getProperty(property);
        if (urls == null) {
            SentinelSetup setup = startSentinel(sentinels);
            urls = setup.masterUrl() + "," + setup.replicaUrl() + "," + String.join(",", setup.sentinelUrls());
            System.setProperty(property, urls);
        }
        List<String> each = List.of(urls.split(","));
        return new SentinelSetup(each.get(0), each.get(1), each.subList(2, each.size()));
    }

    private static SentinelSetup startSentinel(int sentinels) {
        RedisTestServer master = new RedisTestServer();
        RedisTestServer replica = new RedisTestServer("--replicaof", "127.0.0.1", String.valueOf(master.port));
        awaitReplicating(replica.url(), Duration.ofSeconds(30));
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < sentinels; i++) {
            urls.add(startSentinelOf(master));
        }
        return new SentinelSetup(master.url(), replica.url(), urls);
    }

    /** A Sentinel watching {@code master} as {@code mymaster} (quorum 1), once it knows of the replica. */
    private static String startSentinelOf(RedisTestServer master) {
        int port = freePort();
        Path dir = temporaryDirectory("redis-sentinel");
        Path conf = dir.resolve("sentinel.conf");
        try {
            Files.writeString(conf, String.join("\n", "port " + port, "bind 127.0.0.1", "dir " + dir,
                    "sentinel monitor mymaster 127.0.0.1 " + master.port + " 1",
                    "sentinel down-after-milliseconds mymaster 2000", "sentinel failover-timeout mymaster 10000", ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        RedisTestServer sentinel = new RedisTestServer(port, dir,
                List.of("redis-server", conf.toString(), "--sentinel"));
        // Sentinel learns of the replica from the master's INFO: then it lists one (an array of one, '*1').
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> "*1".equals(command(sentinel.url(), "SENTINEL", "REPLICAS", "mymaster")));
        return sentinel.url();
    }

    /** Shuts the server at {@code url} down and waits until it no longer accepts connections. */
    public static void shutdown(String url) {
        int port = Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
        command(url, "SHUTDOWN", "NOSAVE");
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !accepts(port));
    }

    public int port() {
        return port;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /**
     * The script calls ({@code EVALSHA}) the server behind {@code redis} ran so far, all clients together: a test that
     * counts them must be the only user of that server meanwhile.
     */
    public static long scriptCalls(RedisDataSource redis) {
        String stats = redis.execute("INFO", "commandstats").toString();
        Matcher calls = Pattern.compile("cmdstat_evalsha:calls=(\\d+)").matcher(stats);
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    /** Whether the server at {@code url} is a master now (one that a failover promoted too). */
    public static boolean isMaster(String url) {
        return command(url, "INFO", "replication").contains("role:master");
    }

    /**
     * Whether the cluster node at {@code url} holds the slot of {@code key}: it answers a key of its own slots, and
     * {@code MOVED} for the others.
     */
    public static boolean holds(String url, String key) {
        return !command(url, "EXISTS", key).startsWith("-MOVED");
    }

    /**
     * The calls of the commands matching {@code commands} (a regular expression, such as {@code eval|evalsha}) that
     * the server at {@code url} refused so far (by its ACL, say).
     */
    public static long rejectedCalls(String url, String commands) {
        Matcher m = Pattern.compile("cmdstat_(?:" + commands + "):.*?rejected_calls=(\\d+)")
                .matcher(command(url, "INFO", "commandstats"));
        long rejected = 0;
        while (m.find()) {
            rejected += Long.parseLong(m.group(1));
        }
        return rejected;
    }

    /**
     * Sends one command to the server at {@code url} and returns its reply: a status, error, integer or array header
     * line as sent ({@code +OK}, {@code :0}, {@code *2}), the text of a bulk string (ASCII), or null when the server closes the
     * connection.
     */
    public static String command(String url, String... args) {
        byte[][] bytes = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        return command(url, bytes);
    }

    /** As {@link #command(String, String...)}, with arguments of any bytes (text that is not UTF-8, say). */
    public static String command(String url, byte[]... args) {
        int port = Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
        try (Socket socket = new Socket("127.0.0.1", port)) {
            // A frozen server answers nothing: a test that asks one fails rather than hangs.
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(request(args));
            BufferedReader in = new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            String header = in.readLine();
            if (header == null || !header.startsWith("$") || header.equals("$-1")) {
                return header;
            }
            char[] body = new char[Integer.parseInt(header.substring(1))];
            int read = 0;
            while (read < body.length) {
                int more = in.read(body, read, body.length - read);
                if (more < 0) {
                    throw new EOFException("the server closed the connection within a reply");
                }
                read += more;
            }
            return new String(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] request(byte[]... args) {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] arg : args) {
            request.writeBytes(("$" + arg.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            request.writeBytes(arg);
            request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return request.toByteArray();
    }

    private void stop() {
        process.destroy();
        try {
            // A frozen server keeps the signal pending.
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // its directory stays behind
        }
    }

    private static boolean accepts(int port) {
        try (Socket ignored = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A free port whose cluster bus port, 10000 above it, is free too (and exists). */
    private static int freeClusterPort() {
        for (;;) {
            int port = freePort();
            if (port + CLUSTER_BUS_OFFSET <= 65535) {
                try (ServerSocket bus = new ServerSocket(port + CLUSTER_BUS_OFFSET)) {
                    return port;
                } catch (IOException taken) {
                    // try another
                }
            }
        }
    }

    private static Path temporaryDirectory(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> concat(List<String> first, String... more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return all;
    }
}
