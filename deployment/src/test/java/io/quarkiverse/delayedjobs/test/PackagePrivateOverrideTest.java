package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.test.otherpackage.PackagePrivateHandler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A method of the same name in a subclass in another package does not override a package-private {@code @Delayed}
 * method (Java runs the inherited one): the inherited handler runs the queue's jobs.
 */
public class PackagePrivateOverrideTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(PackagePrivateHandler.class, Subclass.class,
                    RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "package-private-override");

    @ApplicationScoped
    static class Subclass extends PackagePrivateHandler {
        /** Not an override: the superclass's method is package-private in another package. */
        void handle() {
            throw new IllegalStateException("not the handler");
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theInheritedMethodRunsTheJobs() throws InterruptedException {
        scheduler.schedule("package-private", "1", null, Duration.ZERO);
        assertTrue(PackagePrivateHandler.ran.await(10, TimeUnit.SECONDS), "the inherited handler ran");
    }
}
