package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A static {@code @Delayed} method is a build error: a handler runs on a bean instance.
 */
public class InvalidStaticMethodTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("A @Delayed method must not be static", Handlers.class, "send")));

    static class Handlers {

        @Delayed("emails")
        static void send(String email) {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
