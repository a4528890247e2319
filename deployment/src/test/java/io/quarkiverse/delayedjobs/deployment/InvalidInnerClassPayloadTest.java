package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A payload parameter of a non-static inner class, alone, in an array (its dimension annotated or not) or as a type
 * argument, is a build error: JSON cannot make an instance bound to an outer one, so every job would go to the dead
 * letters. A static nested class is fine, and so is an inner one with a deserializer of its own.
 */
public class InvalidInnerClassPayloadTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, Outer.class, Outer.Item.class,
                    Outer.Order.class, Outer.Note.class, Outer.NoteReader.class, Checked.class))
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
                            + " bound to an outer one)", Handlers.class, "list"),
                    problem("The payload parameter must not be of a non-static inner class, was "
                            + Outer.Item.class.getName() + " @Checked []; make the class static (JSON cannot make an"
                            + " instance bound to an outer one)", Handlers.class, "annotatedArray")));

    static class Outer {
        class Item {
            public String name;
        }

        static class Order {
            public String id;
        }

        /** Inner, but read by a deserializer of its own, which may make it as it likes. */
        @JsonDeserialize(using = NoteReader.class)
        class Note {
            public String text;
        }

        static class NoteReader extends JsonDeserializer<Note> {
            @Override
            public Note deserialize(JsonParser parser, DeserializationContext context) throws IOException {
                Note note = new Outer().new Note();
                note.text = parser.getValueAsString();
                return note;
            }
        }
    }

    /** A type-use annotation, as on an array's dimension. */
    @Target(ElementType.TYPE_USE)
    @Retention(RetentionPolicy.RUNTIME)
    @interface Checked {
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

        @Delayed("annotated-item-arrays")
        void annotatedArray(Outer.Item @Checked [] items) {
        }

        @Delayed("orders")
        void order(Outer.Order order) {
        }

        @Delayed("notes")
        void note(Outer.Note note) {
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
