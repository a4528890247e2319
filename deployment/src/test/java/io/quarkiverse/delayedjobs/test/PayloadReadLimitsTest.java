package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.core.json.JsonObject;

/**
 * A payload that schedule takes (serializable, within max-payload-size) reaches the handler whose parameter has the
 * producer's type. Jackson reads numbers of at most 1,000 digits and names of at most 50,000 chars by default, and
 * writes any: such payloads went to the dead letters at once as unreadable. Found by a review.
 */
public class PayloadReadLimitsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, Handlers.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "accepted-unreadable");

    static class Handlers {
        static final AtomicReference<Object> bigInteger = new AtomicReference<>();
        static final CountDownLatch bigIntegerRan = new CountDownLatch(1);
        static final AtomicReference<Object> map = new AtomicReference<>();
        static final CountDownLatch mapRan = new CountDownLatch(1);
        static final AtomicReference<JsonObject> object = new AtomicReference<>();
        static final CountDownLatch objectRan = new CountDownLatch(1);

        @Delayed("long-number")
        void object(JsonObject o) {
            object.set(o);
            objectRan.countDown();
        }

        @Delayed("big-integer")
        void bigInteger(BigInteger n) {
            bigInteger.set(n);
            bigIntegerRan.countDown();
        }

        @Delayed("long-key")
        void map(Map<String, String> m) {
            map.set(m);
            mapRan.countDown();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aBigIntegerOfMoreThanAThousandDigits() throws Exception {
        BigInteger n = BigInteger.TEN.pow(1000); // 1001 digits, about 1 KB of JSON
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("big-integer", "n", n, Duration.ZERO));
        assertTrue(Handlers.bigIntegerRan.await(10, TimeUnit.SECONDS),
                "the accepted payload never reached the handler: " + lastErrors("big-integer"));
        assertEquals(n, Handlers.bigInteger.get());
    }

    @Test
    void aMapKeyOfMoreThan50000Chars() throws Exception {
        Map<String, String> m = Map.of("k".repeat(50_001), "v"); // about 50 KB of JSON
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("long-key", "m", m, Duration.ZERO));
        assertTrue(Handlers.mapRan.await(10, TimeUnit.SECONDS),
                "the accepted payload never reached the handler: " + lastErrors("long-key"));
        assertEquals(m, Handlers.map.get());
    }

    @Test
    void aJsonObjectWithANumberOfMoreThanAThousandDigits() throws Exception {
        JsonObject o = new JsonObject().put("n", BigInteger.TEN.pow(1000));
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("long-number", "o", o, Duration.ZERO));
        assertTrue(Handlers.objectRan.await(10, TimeUnit.SECONDS),
                "the accepted payload never reached the handler: " + lastErrors("long-number"));
        assertEquals(BigInteger.TEN.pow(1000), new BigInteger(Handlers.object.get().getValue("n").toString()));
    }

    private List<String> lastErrors(String queue) {
        return scheduler.deadLetters(queue, 10).stream().map(JobInfo::lastError)
                .map(e -> e.length() > 300 ? e.substring(0, 300) : e).toList();
    }
}
