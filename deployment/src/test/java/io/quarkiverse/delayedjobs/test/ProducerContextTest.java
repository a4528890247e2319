package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.vertx.VertxContext;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * A reactive call made on a Vert.x context continues on that context, as the calls of the Quarkus Redis client do:
 * the duplicated context of a request carries its own data (a reactive session, a trace, the MDC), which must not
 * reach another request's code. Here each job waits behind another caller's call, and goes in a call sent from that
 * caller's context.
 */
public class ProducerContextTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "producer-context");

    @Inject
    DelayedScheduler scheduler;

    @Inject
    ReactiveDelayedScheduler reactive;

    @Inject
    Vertx vertx;

    @Test
    void aReactiveCallCompletesOnTheContextItWasMadeOn() throws Exception {
        // Opens the connection and loads the script.
        scheduler.schedule("contexts", "warm-up", "p", Duration.ofMinutes(1));
        // Redis holds every command for 1 s: the first calls are under way while the other jobs wait behind them.
        assertEquals("+OK", RedisTestServer.command(RedisTestServer.sharedUrl(), "CLIENT", "PAUSE", "1000", "ALL"));
        int callers = 32;
        Map<Integer, String> wrong = new ConcurrentHashMap<>();
        CountDownLatch answered = new CountDownLatch(callers);
        for (int i = 0; i < callers; i++) {
            int caller = i;
            Context context = VertxContext.createNewDuplicatedContext(vertx.getOrCreateContext());
            context.putLocal("caller", caller);
            context.runOnContext(v -> reactive.schedule("contexts", "job-" + caller, "p", Duration.ofMinutes(1))
                    .subscribe().with(result -> {
                        Context current = Vertx.currentContext();
                        if (current != context) {
                            wrong.put(caller, current == null ? "no context"
                                    : "the context of caller " + current.getLocal("caller"));
                        }
                        answered.countDown();
                    }, failure -> {
                        wrong.put(caller, failure.toString());
                        answered.countDown();
                    }));
        }
        assertTrue(answered.await(10, TimeUnit.SECONDS), "some calls were not answered");
        assertEquals(Map.of(), wrong, "callers that continued elsewhere");
        for (int i : List.of(0, callers - 1)) {
            assertTrue(scheduler.find("contexts", "job-" + i).isPresent());
        }
    }
}
