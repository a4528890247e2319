package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * More than one payload parameter is a build error that lists the parameter types, reported once per method.
 */
public class InvalidTwoPayloadsTest {

    private static final String RULE = "A @Delayed method may declare at most one payload parameter besides JobContext,"
            + " found ";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem(RULE + "2: java.lang.String, java.lang.Integer", Handlers.class, "send"),
                    problem(RULE + "3: java.lang.String, java.util.List<java.lang.Long>, java.lang.Object",
                            Handlers.class, "build")));

    static class Handlers {

        @Delayed("emails")
        void send(String email, JobContext context, Integer retries) {
        }

        @Delayed("reports")
        void build(String name, List<Long> ids, Object extra) {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
