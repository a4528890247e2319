package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A payload parameter of a generic type receives its type arguments as declared, for types the application's
 * ObjectMapper modifies ({@code Optional}, with the JDK 8 module of Quarkus) and arrays of a generic type too. An inner
 * class with a deserializer of its own is read by it.
 */
public class GenericPayloadTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, Item.class, Notes.class, Notes.Note.class,
                    Notes.NoteReader.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "generic-payload");

    public record Item(String name) {
    }

    static class Notes {
        /** Inner, which JSON alone cannot make, but read by a deserializer of its own. */
        @JsonDeserialize(using = NoteReader.class)
        class Note {
            String text;
        }

        static class NoteReader extends JsonDeserializer<Note> {
            @Override
            public Note deserialize(JsonParser parser, DeserializationContext context) throws IOException {
                Note note = new Notes().new Note();
                note.text = parser.getValueAsString();
                return note;
            }
        }
    }

    static class Handlers {
        static final Map<String, Object> received = new ConcurrentHashMap<>();
        static final CountDownLatch ran = new CountDownLatch(6);

        @Delayed("optional")
        void optional(Optional<Item> item, JobContext context) {
            received.put("optional-" + context.id(), item.map(Object.class::cast).orElse("empty"));
            ran.countDown();
        }

        @Delayed("array-of-lists")
        void arrayOfLists(List<Item>[] lists) {
            received.put("array-of-lists", lists[1].get(0));
            ran.countDown();
        }

        @Delayed("map-of-optionals")
        void mapOfOptionals(Map<String, Optional<Item>> items) {
            received.put("map-of-optionals", items.get("b").get());
            ran.countDown();
        }

        @Delayed("primitive-matrix")
        void primitiveMatrix(int[][] matrix) {
            received.put("primitive-matrix", matrix[1][0]);
            ran.countDown();
        }

        @Delayed("inner-with-deserializer")
        void note(Notes.Note note) {
            received.put("inner-with-deserializer", note.text);
            ran.countDown();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void typeArgumentsReachTheHandler() throws InterruptedException {
        scheduler.schedule("optional", "1", Optional.of(new Item("a")), Duration.ZERO);
        scheduler.schedule("optional", "2", Optional.empty(), Duration.ZERO);
        scheduler.schedule("array-of-lists", "1", List.of(List.of(), List.of(new Item("b"))), Duration.ZERO);
        scheduler.schedule("map-of-optionals", "1", Map.of("b", Optional.of(new Item("c"))), Duration.ZERO);
        scheduler.schedule("primitive-matrix", "1", new int[][] { { 1 }, { 2 } }, Duration.ZERO);
        scheduler.schedule("inner-with-deserializer", "1", "hello", Duration.ZERO);
        assertTrue(Handlers.ran.await(10, TimeUnit.SECONDS), "ran: " + Handlers.received);
        assertEquals(
                Map.of("optional-1", new Item("a"), "optional-2", "empty", "array-of-lists", new Item("b"), "map-of-optionals",
                        new Item("c"), "primitive-matrix", 2, "inner-with-deserializer", "hello"),
                Handlers.received);
    }
}
