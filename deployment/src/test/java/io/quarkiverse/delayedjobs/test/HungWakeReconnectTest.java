package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The wake subscription is lost, and the connection that is to replace it is never answered (a cluster node frozen
 * before the cluster failed it over took connections and answered nothing). It is given up after five times
 * {@code redis-timeout}, as the store's connections are, and the next one subscribes: the instance does not wait for
 * the hung one to answer, which may take minutes.
 */
public class HungWakeReconnectTest {

    private static final Pattern CLIENT = Pattern.compile("id=(\\d+) .* cmd=(\\S+)");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, SilentProxy.class))
            .overrideConfigKey("quarkus.redis.hosts", SilentProxy.url(RedisTestServer.sharedUrl()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "hung-wake-reconnect")
            // Not shorter: the first calls, at startup, open the connection, on a JVM still cold (300 ms once failed
            // the start in CI).
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "1s");

    static class Handler {
        @Delayed("hung-wake-reconnect")
        void run() {
        }
    }

    @Test
    void aReconnectNeverAnsweredIsGivenUpAndTheNextOneSubscribes() {
        int before = SilentProxy.subscribers();
        long newestClient = newestClient(".*");
        SilentProxy.delayReplies(60_000);
        try {
            // Pub/sub clients of the shared server are this application's: the tests run one at a time.
            RedisTestServer.command(RedisTestServer.sharedUrl(), "CLIENT", "KILL", "TYPE", "pubsub");
            // A second later the listener opens a connection: its HELLO reaches Redis, the answer is held back.
            await().atMost(Duration.ofSeconds(10)).until(() -> newestClient("hello") > newestClient);
        } finally {
            SilentProxy.delayReplies(0);
        }
        // Given up 5 s after it was opened, then another a second later: that one subscribes.
        await().atMost(Duration.ofSeconds(20)).until(() -> SilentProxy.subscribers() > before);
    }

    /** The id of the newest client of the shared server whose last command matches {@code command}, or 0. */
    private static long newestClient(String command) {
        Matcher m = CLIENT.matcher(RedisTestServer.command(RedisTestServer.sharedUrl(), "CLIENT", "LIST"));
        long newest = 0;
        while (m.find()) {
            if (m.group(2).matches(command)) {
                newest = Math.max(newest, Long.parseLong(m.group(1)));
            }
        }
        return newest;
    }
}
