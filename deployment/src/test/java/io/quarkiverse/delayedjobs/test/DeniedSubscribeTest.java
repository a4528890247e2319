package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.logging.Level;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A reconnect of the wake subscription whose SUBSCRIBE Redis refuses (here an ACL that denies it for a while) is tried
 * again a second later, like a lost connection, so the subscription is back within seconds once Redis allows it, and
 * there is one. The client completes a SUBSCRIBE once it is written, and hands its error reply to the message handler:
 * before, that reply threw in the handler, the listener took the connection for subscribed, and only the heartbeat, a
 * poll interval (30 s here) and 5 s later, found out.
 */
public class DeniedSubscribeTest {

    private static final String USER = "wakeacl";
    private static final String WAKE_LISTENER = "io.quarkiverse.delayedjobs.runtime.worker.WakeListener";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, LoggedMessages.class))
            .overrideConfigKey("quarkus.redis.hosts", urlWithUser())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "denied");

    static class Handler {
        @Delayed("denied")
        void run() {
        }
    }

    /** A server of this test's own, whose ACL it changes, and a user that may do everything to begin with. */
    private static String urlWithUser() {
        String url = RedisTestServer.sharedUrl("denied-subscribe");
        RedisTestServer.command(url, "ACL", "SETUSER", USER, "on", ">secret", "~*", "&*", "+@all");
        return url.replace("redis://", "redis://" + USER + ":secret@");
    }

    private static String server() {
        return RedisTestServer.sharedUrl("denied-subscribe");
    }

    @Test
    void aRefusedSubscribeIsTriedAgain() {
        String url = server();
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribed() == 1);
        try (LoggedMessages logged = LoggedMessages.of(WAKE_LISTENER, Level.INFO)) {
            RedisTestServer.command(url, "ACL", "SETUSER", USER, "-subscribe");
            RedisTestServer.command(url, "CLIENT", "KILL", "TYPE", "pubsub");
            // The listener tries again a second after each refusal.
            await().atMost(Duration.ofSeconds(10)).until(() -> RedisTestServer.rejectedCalls(server(), "subscribe") >= 3);
            RedisTestServer.command(url, "ACL", "SETUSER", USER, "+subscribe");
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribed() == 1);
            // Logged by outage: a warning for the first refusal, a line once Redis took the subscription again.
            await().atMost(Duration.ofSeconds(5)).until(() -> logged.messages().stream()
                    .anyMatch(m -> m.startsWith("Redis answers the wake subscription again, after ")));
            assertEquals(1, logged.messages().stream()
                    .filter(m -> m.startsWith("Redis refused the delayed-jobs wake subscription")).count(),
                    logged.messages().toString());
        }
        // Nothing but the subscription and the store's own connection (and at most one connection opening).
        int connections = connections();
        assertTrue(connections <= 3, "connections of the application after refused subscribes: " + connections);

        // Redis drops every connection of the application: one subscription comes back, not one per failed attempt.
        RedisTestServer.command(url, "CLIENT", "KILL", "USER", USER);
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribed() >= 1);
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> subscribed() == 1);
    }

    private static int subscribed() {
        return (int) clients().filter(line -> line.contains(" flags=P ")).count();
    }

    private static int connections() {
        return (int) clients().count();
    }

    private static Stream<String> clients() {
        return RedisTestServer.command(server(), "CLIENT", "LIST").lines().filter(line -> line.contains(" user=" + USER + " "));
    }
}
