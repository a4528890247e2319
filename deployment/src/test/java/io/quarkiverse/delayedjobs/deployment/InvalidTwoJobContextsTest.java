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
 * More than one {@code JobContext} parameter is a build error, reported once per method.
 */
public class InvalidTwoJobContextsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("A @Delayed method may declare at most one JobContext parameter, found 2", Handlers.class,
                            "send"),
                    problem("A @Delayed method may declare at most one JobContext parameter, found 3", Handlers.class,
                            "build")));

    static class Handlers {

        @Delayed("emails")
        void send(JobContext first, String email, JobContext second) {
        }

        @Delayed("reports")
        void build(JobContext first, JobContext second, JobContext third) {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
