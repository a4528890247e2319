package io.quarkiverse.delayedjobs.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.test.RedisTestServer;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A handler that implements a generic interface: javac gives the class a synthetic bridge method, {@code handle(Object)},
 * with the annotations of {@code handle(Greeting)}; the bridge is not a second handler of the queue.
 */
public class GenericInterfaceHandlerTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, Greetings.class, Greeting.class,
                    RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "generic-interface");

    public record Greeting(String name) {
    }

    public interface Handler<T> {
        void handle(T payload);
    }

    static class Greetings implements Handler<Greeting> {
        static final BlockingQueue<Object> received = new ArrayBlockingQueue<>(10);

        @Delayed("greetings")
        @Override
        public void handle(Greeting payload) {
            received.add(payload);
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theHandlerRunsWithItsPayload() throws InterruptedException {
        scheduler.schedule("greetings", "g:1", new Greeting("ada"), Duration.ZERO);
        assertEquals(new Greeting("ada"), Greetings.received.poll(20, TimeUnit.SECONDS));
    }
}
