package io.quarkiverse.delayedjobs.runtime.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of the job protocol, one per operation: each is the text of {@value #COMMON} followed by the
 * operation's file, both read from beside this class, except for a first line of the file that declares the script to
 * Redis ({@code #!lua flags=allow-oom}), which stays first; and the readiness probe, its file alone (its first line
 * declares it to Redis too).
 */
public enum Script {
    SCHEDULE("schedule.lua"),
    RECURRING("recurring.lua"),
    CANCEL("cancel.lua"),
    RESCHEDULE("reschedule.lua"),
    FIND("find.lua"),
    CLAIM("claim.lua"),
    ACK("ack.lua"),
    RETRY("retry.lua"),
    RENEW("renew.lua"),
    RELEASE("release.lua"),
    REQUEUE("requeue.lua"),
    STATS("stats.lua"),
    DEAD_LETTERS("dead-letters.lua"),
    HEALTH("health.lua", false);

    /** The functions every script starts with: the layout of pending jobs, the clock, dead-letter pruning, acks. */
    public static final String COMMON = "common.lua";

    private final String file;
    private final String text;
    private final String sha;

    Script(String file) {
        this(file, true);
    }

    Script(String file, boolean common) {
        this.file = file;
        String own = resource(file);
        int declaration = own.startsWith("#!") ? own.indexOf('\n') + 1 : 0;
        this.text = common ? own.substring(0, declaration) + resource(COMMON) + own.substring(declaration) : own;
        try {
            this.sha = HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The text of a file beside this class, such as {@value #COMMON}. */
    public static String resource(String file) {
        try (InputStream in = Script.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("Missing script resource " + file);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String file() {
        return file;
    }

    public String text() {
        return text;
    }

    /** The SHA-1 of the whole text, as EVALSHA and SCRIPT LOAD know it. */
    public String sha() {
        return sha;
    }
}
