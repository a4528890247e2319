package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A @Delayed method declared in an interface, or abstract in a class, is a build error, not a handler that silently
 * never runs, even when a bean implements it.
 */
public class InvalidAbstractOrInterfaceMethodTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Reminders.class, RemindersBean.class, Nudges.class,
                    NudgesBean.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("A @Delayed method must be declared in a class, not in an interface", Reminders.class,
                            "remind"),
                    problem("A @Delayed method must be declared in a class, not in an interface", Reminders.class,
                            "nudge"),
                    problem("A @Delayed method must not be abstract: put @Delayed on the method that implements it",
                            Nudges.class, "nudge")));

    public interface Reminders {
        @Delayed("reminders")
        default void remind() {
        }

        @Delayed("nudges")
        void nudge();
    }

    static class RemindersBean implements Reminders {
        @Override
        public void nudge() {
        }
    }

    public abstract static class Nudges {
        @Delayed("more-nudges")
        abstract void nudge();
    }

    @ApplicationScoped
    static class NudgesBean extends Nudges {
        @Override
        void nudge() {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
