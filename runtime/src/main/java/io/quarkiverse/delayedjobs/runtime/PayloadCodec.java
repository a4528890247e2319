package io.quarkiverse.delayedjobs.runtime;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.TypeFactory;

import io.vertx.core.json.EncodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Payloads as JSON text, through the application's {@link ObjectMapper}.
 */
@Singleton
public class PayloadCodec {

    private static final byte[] JSON_NULL = "null".getBytes(StandardCharsets.US_ASCII);

    private final ObjectMapper mapper;
    /**
     * The application's mapper, reading without Jackson's limits on the length of a number, a name or a string
     * (1,000 digits, 50,000 chars, 20 million chars): writing has none, so a payload {@code schedule} took could not
     * be read back, and went to the dead letters. {@code max-payload-size} bounds what is read.
     */
    private final ObjectMapper readMapper;
    /**
     * Reads {@code JsonObject} and {@code JsonArray} parameters, without those limits either: a plain mapper, which
     * gives them the values Vert.x's own parser would (Integer, Long, BigInteger, Double), whatever the application's
     * mapper is set to (big decimals for floats, default typing).
     */
    private final ObjectMapper vertxMapper;

    public PayloadCodec(ObjectMapper mapper) {
        this.mapper = mapper;
        this.readMapper = mapper.copyWith(unlimited(mapper.getFactory().copy()));
        this.vertxMapper = JsonMapper.builder(unlimited(new JsonFactory()))
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
    }

    private static JsonFactory unlimited(JsonFactory factory) {
        factory.setStreamReadConstraints(StreamReadConstraints.builder()
                .maxNumberLength(Integer.MAX_VALUE)
                .maxNameLength(Integer.MAX_VALUE)
                .maxStringLength(Integer.MAX_VALUE)
                .build());
        return factory;
    }

    /**
     * Writes a payload as JSON and checks its size.
     *
     * @throws IllegalArgumentException naming {@code payload} when it cannot be written or is too large
     */
    public String write(Object payload, long maxBytes) {
        String json;
        if (payload instanceof JsonObject || payload instanceof JsonArray) {
            // Both take values of any type; one JSON cannot hold fails their encoding.
            try {
                json = payload instanceof JsonObject o ? o.encode() : ((JsonArray) payload).encode();
            } catch (EncodeException e) {
                throw new IllegalArgumentException("payload must be serializable as JSON: " + e.getMessage(), e);
            }
        } else {
            try {
                json = mapper.writeValueAsString(payload);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("payload must be serializable as JSON by the application's"
                        + " ObjectMapper: " + e.getOriginalMessage(), e);
            }
        }
        int bad = JobArguments.unpairedSurrogate(json);
        if (bad >= 0) {
            throw new IllegalArgumentException("payload must be valid Unicode text, its JSON has an unpaired surrogate"
                    + " at index " + bad);
        }
        // Cheap upper bound first: a UTF-8 byte is never fewer than a third of a UTF-16 char.
        if ((long) json.length() * 3 > maxBytes) {
            int bytes = json.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > maxBytes) {
                throw new IllegalArgumentException(
                        "payload must be at most " + maxBytes + " bytes as JSON (quarkus.delayed-jobs.max-payload-size),"
                                + " was " + bytes + " bytes");
            }
        }
        return json;
    }

    /** Reads a payload from its JSON text, as Redis returns it: UTF-8 bytes, read without making a String first. */
    @FunctionalInterface
    public interface Reader {
        Object read(byte[] json) throws Exception;
    }

    /**
     * A reader for the given payload type, built once per handler so that the first job pays no set-up cost. A
     * {@code String} parameter gets the value of a JSON string and the JSON text of anything else; a
     * {@code JsonObject} or {@code JsonArray} parameter gets the parsed value; JSON {@code null} reads as null.
     *
     * @param typeName the parameter's type as the build wrote it: a class's binary name, followed by its type
     *        arguments in {@code <>} and by {@code []} per array dimension ({@code java.util.List<com.acme.Item>[]})
     */
    public Reader reader(String typeName) {
        TypeFactory types = mapper.getTypeFactory().withClassLoader(Thread.currentThread().getContextClassLoader());
        TypeNameReader names = new TypeNameReader(types, typeName);
        JavaType type = names.read();
        if (!names.atEnd()) {
            throw new IllegalArgumentException("Not a payload type name: " + typeName);
        }
        Class<?> raw = type.getRawClass();
        Reader reader;
        if (raw == String.class) {
            reader = json -> {
                JsonNode node = readMapper.readTree(json);
                return node.isTextual() ? node.textValue() : new String(json, StandardCharsets.UTF_8);
            };
        } else if (raw == JsonObject.class) {
            // Vert.x's own parser keeps Jackson's limits.
            reader = json -> new JsonObject(vertxMapper.readValue(json, Map.class));
        } else if (raw == JsonArray.class) {
            reader = json -> new JsonArray(vertxMapper.readValue(json, List.class));
        } else {
            // Jackson reads a JSON null as the type's own null value: null for most, an empty Optional, a NullNode.
            ObjectReader objectReader = readMapper.readerFor(type);
            return objectReader::readValue;
        }
        return json -> isJsonNull(json) ? null : reader.read(json);
    }

    /**
     * Reads a payload type name into the type the mapper would make of the declared parameter.
     * {@link TypeFactory#constructFromCanonical} would not: it skips the mapper's type modifiers (an
     * {@code Optional<Item>} stays a plain type, whose {@code Item} is read as a map), and has no notation for an
     * array of a generic type.
     */
    private static final class TypeNameReader {
        private final TypeFactory types;
        private final String text;
        private int at;

        TypeNameReader(TypeFactory types, String text) {
            this.types = types;
            this.text = text;
        }

        boolean atEnd() {
            return at == text.length();
        }

        JavaType read() {
            int start = at;
            // A binary array name ([Lcom.acme.Item;) has brackets too, never an empty pair.
            while (at < text.length() && "<,>".indexOf(text.charAt(at)) < 0 && !text.startsWith("[]", at)) {
                at++;
            }
            Class<?> raw;
            try {
                raw = types.findClass(text.substring(start, at));
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("The payload type " + text + " names a class this application lacks", e);
            }
            JavaType type;
            if (at < text.length() && text.charAt(at) == '<') {
                List<JavaType> arguments = new ArrayList<>();
                do {
                    at++;
                    arguments.add(read());
                } while (at < text.length() && text.charAt(at) == ',');
                if (at == text.length() || text.charAt(at) != '>') {
                    throw new IllegalArgumentException("Not a payload type name: " + text);
                }
                at++;
                type = types.constructParametricType(raw, arguments.toArray(JavaType[]::new));
            } else {
                type = types.constructType(raw);
            }
            while (text.startsWith("[]", at)) {
                at += 2;
                type = types.constructArrayType(type);
            }
            return type;
        }
    }

    /**
     * Whether the JSON text is {@code null}, with the whitespace JSON allows around it: a producer in another language
     * may write it so (Go's json.Encoder ends its output with a line break), and the readers of {@code String},
     * {@code JsonObject} and {@code JsonArray} would not read it as null.
     */
    private static boolean isJsonNull(byte[] json) {
        int from = 0;
        int to = json.length;
        while (from < to && isJsonWhitespace(json[from])) {
            from++;
        }
        while (to > from && isJsonWhitespace(json[to - 1])) {
            to--;
        }
        return Arrays.equals(json, from, to, JSON_NULL, 0, JSON_NULL.length);
    }

    private static boolean isJsonWhitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }
}
