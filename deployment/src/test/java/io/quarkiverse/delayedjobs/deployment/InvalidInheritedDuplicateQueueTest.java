package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static org.junit.jupiter.api.Assertions.fail;

import jakarta.inject.Singleton;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Two beans that inherit one {@code @Delayed} method would be two handlers of its queue: the build error names the
 * method and both beans, not the method twice.
 */
public class InvalidInheritedDuplicateQueueTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Base.class, FirstBean.class, SecondBean.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    // Beans are visited in class-name order, so FirstBean's handler is the one already known.
                    "Queue 'emails' already has a handler, " + Base.class.getName() + "#send() inherited by bean "
                            + FirstBean.class.getName() + "; a queue has exactly one @Delayed method: @Delayed declared on "
                            + Base.class.getName() + "#send(), inherited by bean " + SecondBean.class.getName()));

    abstract static class Base {

        @Delayed("emails")
        void send(String email) {
        }
    }

    @Singleton
    static class FirstBean extends Base {
    }

    @Singleton
    static class SecondBean extends Base {
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
