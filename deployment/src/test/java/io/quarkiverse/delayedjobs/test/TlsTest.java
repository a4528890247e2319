package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Redis over TLS, set up as operations.adoc shows: a {@code rediss://} URL and a named configuration of the TLS
 * registry that trusts the server's certificate. The engine opens connections of its own (its calls, the wake
 * subscription) from the Quarkus client's options: all of them go over TLS, and a job is woken and run on time.
 */
public class TlsTest {

    static final String URL = RedisTestServer.tlsUrl("tls");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, HealthEndpoints.class))
            .overrideConfigKey("quarkus.redis.hosts", URL)
            .overrideConfigKey("quarkus.redis.tls-configuration-name", "redis")
            .overrideConfigKey("quarkus.tls.redis.trust-store.pem.certs", RedisTestServer.tlsServerCertificate("tls"))
            .overrideConfigKey("quarkus.tls.redis.hostname-verification-algorithm", "HTTPS")
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "tls");

    static class Handler {
        static final Map<String, Instant> started = new ConcurrentHashMap<>();

        @Delayed("secure")
        void run(JobContext context) {
            started.put(context.id(), Instant.now());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void jobsAreStoredWokenAndRunOverTls() {
        Instant due = Instant.now().plusMillis(500);
        scheduler.schedule("secure", "over-tls", null, due);
        await().atMost(Duration.ofSeconds(10)).until(() -> Handler.started.containsKey("over-tls"));
        assertFalse(Handler.started.get("over-tls").isBefore(due));
        assertTrue(scheduler.find("secure", "over-tls").isEmpty());
        assertEquals(200, HealthEndpoints.get(HealthEndpoints.READY).status());

        // Every connection of the application, the wake subscription among them, is on the TLS port.
        String tlsPort = ":" + URL.substring(URL.lastIndexOf(':') + 1);
        List<String> clients = Arrays.stream(RedisTestServer.command(RedisTestServer.tlsServerPlainUrl("tls"), "CLIENT",
                "LIST").split("\n")).filter(line -> line.contains("laddr=") && !line.contains("cmd=client")).toList();
        assertFalse(clients.isEmpty());
        assertTrue(clients.stream().allMatch(line -> line.contains("laddr=127.0.0.1" + tlsPort + " ")), clients::toString);
        assertTrue(clients.stream().anyMatch(line -> line.contains(" flags=P ")), "a subscriber: " + clients);
    }
}
