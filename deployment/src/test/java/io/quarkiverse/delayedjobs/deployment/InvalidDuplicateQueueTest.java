package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Two handlers for one queue are a build error naming both methods, whether they are in two beans or in one, or are
 * overloads of one method.
 */
public class InvalidDuplicateQueueTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(FirstBean.class, SecondBean.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    // Beans are visited in class-name order, so FirstBean's handler is the one already known.
                    problem("Queue 'emails' already has a handler, " + FirstBean.class.getName()
                            + "#send(); a queue has exactly one @Delayed method", SecondBean.class, "send"),
                    problem("Queue 'reports' already has a handler, " + SecondBean.class.getName()
                            + "#build(); a queue has exactly one @Delayed method", SecondBean.class, "rebuild"),
                    // Overloads: both named with their parameter types, else the message would name one method twice.
                    problem("Queue 'orders' already has a handler, " + SecondBean.class.getName()
                            + "#take(java.lang.String) (this one is " + SecondBean.class.getName()
                            + "#take(java.util.UUID)); a queue has exactly one @Delayed method", SecondBean.class,
                            "take")));

    static class FirstBean {

        @Delayed("emails")
        void send(String email) {
        }
    }

    static class SecondBean {

        @Delayed("emails")
        void send(String email) {
        }

        @Delayed("reports")
        void build() {
        }

        @Delayed("reports")
        void rebuild() {
        }

        @Delayed("orders")
        void take(String order) {
        }

        @Delayed("orders")
        void take(UUID order) {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
