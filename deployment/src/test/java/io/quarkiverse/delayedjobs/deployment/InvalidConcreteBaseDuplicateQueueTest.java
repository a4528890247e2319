package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.enterprise.context.ApplicationScoped;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A concrete class without a scope that declares a {@code @Delayed} method is a bean of its own, so a bean subclass makes
 * the method a second handler of its queue: the build error says why the class is a bean and what to do.
 */
public class InvalidConcreteBaseDuplicateQueueTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Base.class, Mailer.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    // Beans are visited in class-name order: Base first.
                    "Queue 'emails' already has a handler, " + Base.class.getName() + "#send(); a queue has exactly"
                            + " one @Delayed method, and " + Base.class.getName() + " is a bean too: a class that"
                            + " declares a @Delayed method is a bean of its own (a @Singleton when it has no scope"
                            + " annotation), make it abstract to have only its subclasses run it: @Delayed declared on "
                            + Base.class.getName() + "#send(), inherited by bean " + Mailer.class.getName()));

    public static class Base {

        @Delayed("emails")
        void send(String email) {
        }
    }

    @ApplicationScoped
    public static class Mailer extends Base {
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
