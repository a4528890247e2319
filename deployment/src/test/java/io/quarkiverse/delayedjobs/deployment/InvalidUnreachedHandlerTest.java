package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.inject.Vetoed;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A {@code @Delayed} method that no bean declares nor inherits would never run: an abstract class that no bean
 * extends, one whose subclass has no scope annotation (so is no bean), a {@code @Vetoed} class, an inner class. Each
 * is a build error.
 */
public class InvalidUnreachedHandlerTest {

    static final String RULE = "A @Delayed method must be a method of a bean, and no bean declares or inherits this one"
            + " (an abstract class that no bean extends, a subclass without a scope annotation, a @Vetoed class): give"
            + " the class that is to run it a scope such as @ApplicationScoped";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(NoSubclass.class, Inherited.class, NoScope.class,
                    Excluded.class, Inner.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem(RULE, NoSubclass.class, "run"),
                    problem(RULE, Inherited.class, "run"),
                    problem(RULE, Excluded.class, "run"),
                    problem("A @Delayed method must be declared in a top-level or static nested class: CDI makes no"
                            + " bean of an inner class", Inner.class, "run")));

    abstract static class NoSubclass {
        @Delayed("no-subclass")
        void run() {
        }
    }

    abstract static class Inherited {
        @Delayed("inherited")
        void run() {
        }
    }

    /** No scope annotation: not a bean, so its inherited method is nobody's handler. */
    static class NoScope extends Inherited {
    }

    @Vetoed
    static class Excluded {
        @Delayed("vetoed")
        void run() {
        }
    }

    /** Not static: its instances need one of the test class. */
    class Inner {
        @Delayed("inner")
        void run() {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
