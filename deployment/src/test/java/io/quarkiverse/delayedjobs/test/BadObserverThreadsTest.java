package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.event.Observes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.JobSucceeded;
import io.quarkus.test.QuarkusUnitTest;

/** No thread to tell the observers of the job events on: the application refuses to start, naming the setting. */
public class BadObserverThreadsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "bad-observer-threads")
            .overrideConfigKey("quarkus.delayed-jobs.observer-threads", "0")
            .assertException(refusedWith("quarkus.delayed-jobs.observer-threads must be at least 1, was 0"));

    static class Handler {
        @Delayed("observed")
        void run() {
        }

        void succeeded(@Observes JobSucceeded event) {
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
