package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.common.annotation.RunOnVirtualThread;

/**
 * {@code @NonBlocking} together with {@code @RunOnVirtualThread} is a build error: they ask for different threads.
 */
public class InvalidNonBlockingAndVirtualThreadTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("A @Delayed method must not be annotated both @NonBlocking and @RunOnVirtualThread",
                            Handlers.class, "send")));

    static class Handlers {

        @NonBlocking
        @RunOnVirtualThread
        @Delayed("emails")
        void send(String email) {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
