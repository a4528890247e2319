package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A {@code @Delayed} method that no bean could ever run is a build error: one of an abstract class that no bean
 * extends, or whose subclass has no scope annotation (so is no bean), or of an inner class. Classes left out of the
 * beans on purpose are not: see {@code ExcludedHandlerTest}.
 */
public class InvalidUnreachedHandlerTest {

    static String rule(Class<?> abstractClass) {
        return "A @Delayed method of an abstract class must be inherited by a bean, and no bean extends "
                + abstractClass.getName() + " (a subclass without a scope annotation is no bean): give the subclass"
                + " that is to run it a scope such as @ApplicationScoped";
    }

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(NoSubclass.class, Inherited.class, NoScope.class, Inner.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem(rule(NoSubclass.class), NoSubclass.class, "run"),
                    problem(rule(Inherited.class), Inherited.class, "run"),
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
