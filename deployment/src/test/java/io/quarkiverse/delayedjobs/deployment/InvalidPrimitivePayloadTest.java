package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A primitive payload parameter is a build error: a payload may be JSON null.
 */
public class InvalidPrimitivePayloadTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("The payload parameter must not be a primitive type, was int; use its wrapper class",
                            Handlers.class, "count"),
                    problem("The payload parameter must not be a primitive type, was boolean; use its wrapper class",
                            Handlers.class, "toggle")));

    static class Handlers {

        @Delayed("counts")
        void count(int value) {
        }

        @Delayed("toggles")
        void toggle(JobContext context, boolean on) {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
