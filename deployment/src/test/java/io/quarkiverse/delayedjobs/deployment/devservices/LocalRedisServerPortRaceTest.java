package io.quarkiverse.delayedjobs.deployment.devservices;

import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Two applications started side by side can pick the same free port: one {@code redis-server} binds it, the other
 * fails ("Address already in use"). The one that failed must not take the other's server, which answers PING on that
 * port all the same, for its own: it would share the other application's data, and lose its Redis when that
 * application stops.
 */
public class LocalRedisServerPortRaceTest {

    @Test
    void aServerThatLostItsPortIsNotTakenForOurs() throws Exception {
        Path work = Files.createTempDirectory("port-race");
        Path other = Files.createDirectory(work.resolve("other"));
        Path lost = work.resolve("lost-once");
        // A redis-server that loses the race on its first run: another server (the other application's) takes its
        // port, and it fails once a client has sent that server a PING. Later runs are the real redis-server.
        String script = "#!/bin/sh\n"
                + "if [ -e " + lost + " ]; then exec redis-server \"$@\"; fi\n"
                + "touch " + lost + "\n"
                + "port=$2\n"
                + "echo $port > " + other.resolve("port") + "\n"
                + "redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir " + other
                + " --pidfile " + other.resolve("redis.pid") + " --logfile " + other.resolve("redis.log") + "\n"
                + "until redis-cli -p $port INFO commandstats 2>/dev/null | grep -q cmdstat_ping; do sleep 0.01; done\n"
                + "echo 'Could not create server TCP listening socket 127.0.0.1:'$port': bind: Address already in use'\n"
                + "exit 1\n";
        Path executable = work.resolve("redis-server");
        Files.writeString(executable, script, StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(executable, PosixFilePermissions.fromString("rwx------"));

        LocalRedisServer server = new LocalRedisServer(executable, false);
        try {
            server.start();
            int otherPort = Integer.parseInt(Files.readString(other.resolve("port")).strip());
            assertNotEquals(otherPort, server.port(), "the server started is not the other application's");
        } finally {
            server.close();
            stop(other.resolve("redis.pid"));
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void stop(Path pidFile) throws IOException, InterruptedException {
        if (Files.exists(pidFile)) {
            long pid = Long.parseLong(Files.readString(pidFile).strip());
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        }
    }
}
