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
 * A payload parameter of a non-static inner class, alone, in an array or as a type argument, is a build error: JSON cannot make
 * an instance bound to an outer one, so every job would go to the dead letters. A static
 * nested class is fine.
 */
public class InvalidInnerClassPayloadTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, Outer.class, Outer.Item.class,
                    Outer.Order.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("The payload parameter must not be of a non-static inner class, was "
                            + Outer.Item.class.getName() + "; make the class static (JSON cannot make an instance"
                            + " bound to an outer one)", Handlers.class, "one"),
                    problem("The payload parameter must not be of a non-static inner class, was "
                            + Outer.Item.class.getName() + "[]; make the class static (JSON cannot make an instance"
                            + " bound to an outer one)", Handlers.class, "many"),
                    problem("The payload parameter must not be of a non-static inner class, was java.util.List<"
                            + Outer.Item.class.getName() + ">; make the class static (JSON cannot make an instance"
                            + " bound to an outer one)", Handlers.class, "list")));

    static class Outer {
        class Item {
            public String name;
        }

        static class Order {
            public String id;
        }
    }

    static class Handlers {

        @Delayed("items")
        void one(Outer.Item item) {
        }

        @Delayed("item-arrays")
        void many(Outer.Item[] items) {
        }

        @Delayed("item-lists")
        void list(List<Outer.Item> items) {
        }

        @Delayed("orders")
        void order(Outer.Order order) {
        }

        @Delayed("order-lists")
        void orders(List<Outer.Order> orders) {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
