package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A payload parameter typed by a type variable, or of a type with one in it, is a build error: nothing tells which
 * class to read the JSON as.
 */
public class InvalidTypeVariablePayloadTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("The payload parameter must not be a type variable, was T", Handlers.class, "send"),
                    problem("The payload parameter's type must not contain a type variable, was java.util.List<N>;"
                            + " name the type it stands for", Handlers.class, "sum")));

    static class Handlers {

        @Delayed("emails")
        <T> void send(T payload) {
        }

        @Delayed("sums")
        <N extends Number> void sum(List<N> numbers) {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
