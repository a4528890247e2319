package io.quarkiverse.delayedjobs.runtime;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * The rules producer arguments must follow, checked before anything is written. Each message names the argument and
 * the rule.
 */
public final class JobArguments {

    private static final int MAX_QUEUE_LENGTH = 64;
    public static final Pattern QUEUE_NAME = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_QUEUE_LENGTH + "}");
    public static final int MAX_ID_BYTES = 512;
    public static final int MAX_LIST_LIMIT = 10_000;
    static final Instant LATEST_DUE = Instant.parse("9999-12-31T23:59:59.999Z");
    /**
     * The latest end of a delay, a day before {@link #LATEST_DUE}: Redis measures a delay by its own clock, from when
     * the call reaches it, so a delay checked against this JVM's clock up to the latest due time itself could end past
     * it there and be refused by the script, after the queue's first use was recorded.
     */
    static final Instant LATEST_DELAY_END = LATEST_DUE.minus(Duration.ofDays(1));

    private JobArguments() {
    }

    public static String queue(String queue) {
        if (!isQueueName(queue)) {
            throw new IllegalArgumentException("queue must match " + QUEUE_NAME.pattern() + ", was "
                    + (queue == null ? "null" : "'" + queue + "'"));
        }
        return queue;
    }

    /** Same as matching {@link #QUEUE_NAME}, without a matcher per call: producers check every job's queue. */
    private static boolean isQueueName(String queue) {
        if (queue == null || queue.isEmpty() || queue.length() > MAX_QUEUE_LENGTH) {
            return false;
        }
        for (int i = 0; i < queue.length(); i++) {
            char c = queue.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_'
                    || c == '-')) {
                return false;
            }
        }
        return true;
    }

    public static String id(String id) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("id must not be blank, was " + (id == null ? "null" : "'" + id + "'"));
        }
        // A UTF-16 char takes at most 3 bytes in UTF-8 (a surrogate pair 4 for 2 chars): short ids need no count.
        int bytes = id.length() * 3 <= MAX_ID_BYTES ? 0 : id.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_ID_BYTES) {
            throw new IllegalArgumentException(
                    "id must be at most " + MAX_ID_BYTES + " bytes in UTF-8, was " + bytes + " bytes");
        }
        int bad = unpairedSurrogate(id);
        if (bad >= 0) {
            throw new IllegalArgumentException("id must be valid Unicode text, was '" + id
                    + "' with an unpaired surrogate at index " + bad);
        }
        return id;
    }

    /**
     * The index of the first char of {@code text} that is half of a surrogate pair without its other half, or -1.
     * UTF-8 has no encoding for such a char: the client would send '?' in its place, so that two different ids (or
     * payloads) became the same one in Redis.
     */
    public static int unpairedSurrogate(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                if (!Character.isHighSurrogate(c) || i + 1 == text.length()
                        || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return i;
                }
                i++;
            }
        }
        return -1;
    }

    public static long dueAt(Instant dueAt) {
        if (dueAt == null) {
            throw new IllegalArgumentException("dueAt must not be null");
        }
        if (dueAt.isBefore(Instant.EPOCH) || dueAt.isAfter(LATEST_DUE)) {
            throw new IllegalArgumentException(
                    "dueAt must be between " + Instant.EPOCH + " and " + LATEST_DUE + ", was " + dueAt);
        }
        return roundedUp(dueAt.toEpochMilli(), dueAt.getNano());
    }

    /**
     * Due times are whole ms: a part of one rounds up, so that the job is never due before the time asked for.
     * {@code nanos} is the nanosecond field of the value {@code millis} was truncated from.
     */
    private static long roundedUp(long millis, int nanos) {
        return millis + (nanos % 1_000_000 == 0 ? 0 : 1);
    }

    public static long delay(Duration delay) {
        if (delay == null) {
            throw new IllegalArgumentException("delay must not be null");
        }
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative, was " + delay);
        }
        // Compared field by field: Duration.between(now, LATEST_DELAY_END) overflows nanoseconds and throws, inside,
        // an exception per call. The two fractions of a second may add up to more than one: that second counts too.
        Instant now = Instant.now();
        int nanos = now.getNano() + delay.getNano();
        long room = LATEST_DELAY_END.getEpochSecond() - now.getEpochSecond() - nanos / 1_000_000_000;
        if (delay.getSeconds() > room
                || delay.getSeconds() == room && nanos % 1_000_000_000 > LATEST_DELAY_END.getNano()) {
            throw new IllegalArgumentException("delay must end before " + LATEST_DELAY_END
                    + " (a day before the latest due time, as Redis measures it by its own clock), was " + delay);
        }
        return roundedUp(delay.toMillis(), delay.getNano());
    }

    public static <T> T notNull(String name, T value) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    public static int limit(int limit) {
        if (limit < 1 || limit > MAX_LIST_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIST_LIMIT + ", was " + limit);
        }
        return limit;
    }
}
