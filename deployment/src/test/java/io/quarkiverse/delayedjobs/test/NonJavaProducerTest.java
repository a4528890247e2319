package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.redis.Script;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A producer written in Python, with nothing but a socket and {@code zlib.crc32}, schedules and cancels jobs by the
 * documented protocol; the Java handler of the queue receives the scheduled job, typed, and never the cancelled one.
 */
public class NonJavaProducerTest {

    static final String PRODUCER = "non-java-producer.py";
    static final String PREFIX = "non-java";
    /** The script files as the protocol page tells producers to ship them, relative to this module. */
    static final Path SCRIPTS = Path.of("..", "runtime", "src", "main", "resources", "io", "quarkiverse", "delayedjobs",
            "runtime", "redis");

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Onboarding.class, HelpEmail.class, RedisTestServer.class)
                    .addAsResource(PRODUCER))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", PREFIX);

    /** The payload type of the docs' example. */
    public record HelpEmail(long customerId, String language) {
    }

    static class Onboarding {
        static final Map<String, HelpEmail> received = new ConcurrentHashMap<>();
        static final CountDownLatch scheduled = new CountDownLatch(1);

        @Delayed("help-email")
        void send(HelpEmail email, JobContext context) {
            received.put(context.id(), email);
            if (context.id().equals("help-email:42")) {
                scheduled.countDown();
            }
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aPythonProducerSchedulesAndCancelsByTheDocumentedProtocol() throws Exception {
        String url = RedisTestServer.sharedUrl();
        // Emptied script cache: the producer's first EVALSHA of each script must fall back to EVAL.
        RedisTestServer.command(url, "SCRIPT", "FLUSH");

        Map<String, String> facts = runProducer(URI.create(url));

        assertEquals("8", facts.get("shards"));
        assertEquals("1", facts.get("shard of help-email:42"), "the shard the protocol page gives as example");
        assertEquals(Script.SCHEDULE.sha(), facts.get("sha schedule.lua"));
        assertEquals(String.valueOf(QueueKeys.bucketOf("help-email:43")), facts.get("bucket of help-email:43"),
                "the bucket the Java producer passes");
        assertEquals(Script.CANCEL.sha(), facts.get("sha cancel.lua"));
        assertEquals(Script.FIND.sha(), facts.get("sha find.lua"));
        assertEquals("3", facts.get("noscript fallbacks"), "one EVAL per script after SCRIPT FLUSH, then EVALSHA");

        assertTrue(Onboarding.scheduled.await(10, TimeUnit.SECONDS), "help-email:42 did not run");
        assertEquals(new HelpEmail(42, "en"), Onboarding.received.get("help-email:42"));
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find("help-email", "help-email:42").isEmpty());

        assertEquals(Optional.empty(), scheduler.find("help-email", "help-email:43"));
        // help-email:43 was due two seconds after the producer scheduled it: it must stay unrun well past that.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> !Onboarding.received.containsKey("help-email:43"));
        assertEquals(0, scheduler.stats("help-email").pending());
    }

    /** Runs the Python producer against the shared Redis and returns the "name: value" lines it printed. */
    Map<String, String> runProducer(URI redis) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("non-java-producer");
        Path producer = dir.resolve(PRODUCER);
        try (InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(PRODUCER)) {
            Files.copy(in, producer);
        }
        Path scripts = SCRIPTS.toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(scripts.resolve("schedule.lua")), "no script files in " + scripts);
        Path output = dir.resolve("output.txt");
        List<String> command = List.of("python3", producer.toString(), redis.getHost(),
                String.valueOf(redis.getPort()), PREFIX, scripts.toString());
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        } catch (IOException e) {
            return fail("This test needs python3 on the PATH (apt-get install python3) to run a producer that is not"
                    + " Java: " + e.getMessage(), e);
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("The Python producer did not finish within 60 s: " + Files.readString(output));
        }
        String printed = Files.readString(output, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), "The Python producer failed: " + printed);
        Map<String, String> facts = new HashMap<>();
        for (String line : printed.split("\n")) {
            int colon = line.indexOf(": ");
            if (colon > 0) {
                facts.put(line.substring(0, colon), line.substring(colon + 2).trim());
            }
        }
        return facts;
    }
}
