package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * While Redis cannot be reached, the instance tries to reach it again at a bounded pace. A lost connection makes it
 * check its wake subscription with a heartbeat, which needs a connection of its own: when opening that one fails, the
 * failure must not start the next check at once (each failed opening is a lost connection too).
 */
public class RedisDownReconnectPaceTest {

    static final String URL = RedisTestServer.sharedUrl("down-pace");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "down-pace")
            // A stop with Redis gone waits this long for the calls in flight.
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "1s");

    static class Handler {
        @Delayed("down-pace")
        void run() {
        }
    }

    @Test
    void connectionsAreTriedAgainAtABoundedPace() throws IOException {
        int port = Integer.parseInt(URL.substring(URL.lastIndexOf(':') + 1));
        RedisTestServer.shutdown(URL);
        // In its place, a server that takes each connection and closes it at once: every opening fails, and is counted.
        try (ServerSocket closing = new ServerSocket()) {
            closing.setReuseAddress(true);
            closing.bind(new InetSocketAddress("127.0.0.1", port));
            AtomicInteger accepted = new AtomicInteger();
            Thread acceptor = new Thread(() -> {
                while (true) {
                    try (Socket ignored = closing.accept()) {
                        accepted.incrementAndGet();
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            // The subscription is tried again a second after each failure, a heartbeat at most every 5 s: 5 openings in
            // 5 s when this was written. Before the heartbeats after a loss were paced, each failed opening sent the
            // next at once, and this failed.
            await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(6)).until(() -> accepted.get() < 60);
            // Paced, but tried: an instance that gave up would pass the bound above as well.
            int before = accepted.get();
            await().atMost(Duration.ofSeconds(10)).until(() -> accepted.get() >= before + 2);
        }
    }
}
