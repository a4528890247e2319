package io.quarkiverse.delayedjobs.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * A {@code JsonObject} or {@code JsonArray} parameter gets what Vert.x's own parser would give, whatever the
 * application's {@code ObjectMapper} is set to (a first reading through that mapper, to lift Jackson's read limits,
 * changed them; found by a review).
 */
class PayloadCodecTest {

    private static final byte[] JSON = "{\"price\":1.5,\"n\":7,\"items\":[{\"q\":2.25}]}".getBytes(StandardCharsets.UTF_8);

    private static Object read(ObjectMapper mapper, Class<?> type, byte[] json) throws Exception {
        return new PayloadCodec(mapper).reader(type.getName()).read(json);
    }

    @Test
    void bigNumbersForTheApplicationLeaveJsonObjectValuesAsVertxReadsThem() throws Exception {
        ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);
        JsonObject read = (JsonObject) read(mapper, JsonObject.class, JSON);
        assertInstanceOf(Double.class, read.getValue("price"));
        assertInstanceOf(Integer.class, read.getValue("n"));
        assertEquals(new JsonObject(Buffer.buffer(JSON)), read);
    }

    @Test
    void defaultTypingOfTheApplicationLeavesJsonPayloadsReadable() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        mapper.activateDefaultTyping(BasicPolymorphicTypeValidator.builder().allowIfBaseType(Object.class).build(),
                ObjectMapper.DefaultTyping.NON_FINAL);
        byte[] object = new JsonObject().put("a", 1).encode().getBytes(StandardCharsets.UTF_8);
        assertEquals(1, ((JsonObject) read(mapper, JsonObject.class, object)).getInteger("a"));
        byte[] array = new JsonArray().add(1).encode().getBytes(StandardCharsets.UTF_8);
        assertEquals(1, ((JsonArray) read(mapper, JsonArray.class, array)).getInteger(0));
    }

    @Test
    void aNullPayloadIsTheNullValueOfTheParameterType() throws Exception {
        PayloadCodec codec = new PayloadCodec(new ObjectMapper().registerModule(new Jdk8Module()));
        byte[] json = " null ".getBytes(StandardCharsets.UTF_8);
        assertEquals(Optional.empty(), codec.reader("java.util.Optional<java.lang.String>").read(json));
        assertEquals(NullNode.getInstance(), codec.reader(JsonNode.class.getName()).read(json));
        assertNull(codec.reader(String.class.getName()).read(json));
        assertNull(codec.reader(JsonObject.class.getName()).read(json));
        assertNull(codec.reader("java.util.List<java.lang.String>").read(json));
    }

    @Test
    void anArrayIsNoJsonObjectWhateverTheApplicationUnwraps() {
        ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.UNWRAP_SINGLE_VALUE_ARRAYS);
        byte[] array = "[{\"a\":1}]".getBytes(StandardCharsets.UTF_8);
        assertThrows(Exception.class, () -> read(mapper, JsonObject.class, array));
    }
}
