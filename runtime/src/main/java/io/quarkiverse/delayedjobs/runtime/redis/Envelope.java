package io.quarkiverse.delayedjobs.runtime.redis;

/**
 * A job as stored in the {@code jobs} hash: {@code due|attempts|token|payload}, where due is in ms since the epoch,
 * token is empty unless the job is claimed, and payload is the JSON text, which may itself contain {@code |}.
 */
public record Envelope(long dueMs, int attempts, String token, String payload) {

    public static Envelope parse(String text) {
        int a = text.indexOf('|');
        int b = text.indexOf('|', a + 1);
        int c = text.indexOf('|', b + 1);
        if (a < 0 || b < 0 || c < 0) {
            throw new IllegalStateException("Malformed job envelope: " + text);
        }
        return new Envelope(Long.parseLong(text, 0, a, 10), Integer.parseInt(text, a + 1, b, 10),
                text.substring(b + 1, c), text.substring(c + 1));
    }
}
