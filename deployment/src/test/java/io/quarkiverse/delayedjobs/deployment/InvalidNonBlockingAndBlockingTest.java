package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;

/**
 * {@code @NonBlocking} together with {@code @Blocking} is a build error, whatever the return type.
 */
public class InvalidNonBlockingAndBlockingTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("A @Delayed method must not be annotated both @NonBlocking and @Blocking", Handlers.class,
                            "send"),
                    problem("A @Delayed method must not be annotated both @NonBlocking and @Blocking", Handlers.class,
                            "build")));

    static class Handlers {

        @Blocking
        @NonBlocking
        @Delayed("emails")
        void send(String email) {
        }

        @Blocking
        @NonBlocking
        @Delayed("reports")
        Uni<Void> build() {
            return Uni.createFrom().voidItem();
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
