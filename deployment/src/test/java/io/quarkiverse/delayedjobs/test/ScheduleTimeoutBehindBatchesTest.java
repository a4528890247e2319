package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Schedule calls waiting behind a call of their shard that went unanswered for {@code redis-timeout} fail with it,
 * unsent; those behind calls answered in time are all stored, however long the line. Before, the 320 jobs of the
 * first case went in five calls of their shard one after the other, each timing out in turn, and the last failed after
 * 6 s with a 1 s timeout; a first fix that failed jobs for the time they waited in line failed most of the second
 * case's burst, though every call was answered within 300 ms. Both found by reviews.
 */
public class ScheduleTimeoutBehindBatchesTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "timeout-behind-batches")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "1s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.stalled.shards", "1")
            .overrideConfigKey("quarkus.delayed-jobs.queues.burst.shards", "1");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Test
    void everyScheduleCallFailsAboutRedisTimeoutAfterItWasMade() throws Exception {
        scheduler.schedule("stalled", "warm-up", "p", Duration.ofMinutes(1)); // shard count recorded, script loaded
        String url = RedisTestServer.sharedUrl();
        // Redis holds every write for 8 s: the schedule calls go unanswered.
        assertEquals("+OK", RedisTestServer.command(url, "CLIENT", "PAUSE", "8000", "WRITE"));
        try {
            int jobs = 320;
            List<CompletableFuture<Long>> failedAfterMs = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                long made = System.nanoTime();
                failedAfterMs.add(reactive.schedule("stalled", "job-" + i, "p", Duration.ofMinutes(1))
                        .subscribeAsCompletionStage()
                        .handle((result, failure) -> {
                            assertTrue(failure instanceof DelayedJobsException, String.valueOf(failure));
                            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - made);
                        }));
            }
            long slowest = 0;
            for (CompletableFuture<Long> f : failedAfterMs) {
                slowest = Math.max(slowest, f.get(30, TimeUnit.SECONDS));
            }
            assertTrue(slowest < 3_000, "with redis-timeout 1s, a schedule call failed only " + slowest
                    + " ms after it was made (it waited behind the calls of its shard, each timing out in turn)");
        } finally {
            RedisTestServer.command(url, "CLIENT", "UNPAUSE");
        }
    }

    @Test
    void aLongLineBehindCallsAnsweredInTimeIsAllStored() throws Exception {
        scheduler.schedule("burst", "warm-up", "p", Duration.ofMinutes(1));
        String url = RedisTestServer.sharedUrl();
        int port = Integer.parseInt(url.substring(url.lastIndexOf(':') + 1));
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger windows = new AtomicInteger();
        AtomicReference<IOException> pauserFailure = new AtomicReference<>();
        // Redis holds writes in back-to-back windows of 300 ms: each call waits up to that, well within the timeout.
        Thread pauser = new Thread(() -> {
            try (Socket socket = new Socket("127.0.0.1", port)) {
                OutputStream out = socket.getOutputStream();
                BufferedReader in = new BufferedReader(
                        new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                for (int window = 0; window < 40 && !done.get(); window++) {
                    out.write(("*4\r\n$6\r\nCLIENT\r\n$5\r\nPAUSE\r\n$3\r\n300\r\n$5\r\nWRITE\r\n"
                            + "*3\r\n$3\r\nSET\r\n$19\r\nexpiry-healthy:gate\r\n$1\r\n1\r\n")
                            .getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    String paused = in.readLine();
                    if (!"+OK".equals(paused)) {
                        throw new IOException("CLIENT PAUSE answered " + paused);
                    }
                    in.readLine(); // the SET is answered when the window ends
                    windows.incrementAndGet();
                }
            } catch (IOException e) {
                pauserFailure.set(e);
            }
        });
        pauser.start();
        try {
            int jobs = 1280; // 20 calls of 64 in a line, about 6 s
            List<CompletableFuture<String>> outcomes = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                outcomes.add(reactive.schedule("burst", "job-" + i, "p", Duration.ofMinutes(1))
                        .subscribeAsCompletionStage().handle((r, f) -> f == null ? "ok" : f.getMessage()));
            }
            List<String> failures = new ArrayList<>();
            for (CompletableFuture<String> outcome : outcomes) {
                String s = outcome.get(60, TimeUnit.SECONDS);
                if (!s.equals("ok")) {
                    failures.add(s);
                }
            }
            assertEquals(List.of(), failures.stream().limit(3).toList(), failures.size() + " of " + jobs + " failed");
            // The line did wait behind the windows: a pauser that failed would leave nothing to wait behind.
            assertNull(pauserFailure.get());
            assertTrue(windows.get() >= 5, "only " + windows.get() + " windows while the jobs were stored");
        } finally {
            done.set(true);
            pauser.join(10_000);
            RedisTestServer.command(url, "CLIENT", "UNPAUSE");
        }
    }
}
