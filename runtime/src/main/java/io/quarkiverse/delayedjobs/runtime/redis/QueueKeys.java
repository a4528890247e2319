package io.quarkiverse.delayedjobs.runtime.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The Redis key layout of one queue. Every key of a shard shares the hash tag {@code {queue:shard}}, so that one
 * script touches one cluster slot; a job lives in the shard {@code crc32(utf8(id)) mod shards}.
 */
public final class QueueKeys {

    private static final String[] SHARD_KEY_NAMES = { "due", "run", "jobs", "dead", "err", "seq", "cron", "ix",
            "claims" };
    private static final MessageDigest SHA1;

    static {
        try {
            SHA1 = MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String queue;
    private final int shards;
    private final String wakeChannel;
    private final String shardCountKey;
    private final List<String>[] shardKeys;

    @SuppressWarnings("unchecked")
    public QueueKeys(String prefix, String queue, int shards) {
        this.queue = queue;
        this.shards = shards;
        this.wakeChannel = prefix + ":{" + queue + "}:wake";
        this.shardCountKey = prefix + ":{" + queue + "}:shards";
        this.shardKeys = new List[shards];
        for (int s = 0; s < shards; s++) {
            String[] keys = new String[SHARD_KEY_NAMES.length];
            for (int k = 0; k < keys.length; k++) {
                keys[k] = prefix + ":{" + queue + ":" + s + "}:" + SHARD_KEY_NAMES[k];
            }
            shardKeys[s] = List.of(keys);
        }
    }

    public String queue() {
        return queue;
    }

    public int shards() {
        return shards;
    }

    /** The channel the scripts publish {@code shard:dueMs} on when a shard gets an earlier head. */
    public String wakeChannel() {
        return wakeChannel;
    }

    /** The string key recording the queue's shard count. */
    public String shardCountKey() {
        return shardCountKey;
    }

    /** The nine keys of a shard, in the order every script takes them (see {@code common.lua}). */
    public List<String> shard(int shard) {
        return shardKeys[shard];
    }

    public int shardOf(String id) {
        return shardOf(id, shards);
    }

    public static int shardOf(String id, int shards) {
        CRC32 crc = new CRC32();
        crc.update(id.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % shards);
    }

    /**
     * The index bucket of an id within its shard, as {@code bucketOf} in common.lua computes it: the second byte of the
     * SHA-1 of the id's UTF-8 bytes. {@code schedule.lua} takes it from the producer because {@code redis.sha1hex} is
     * the costliest step of storing a job in Redis.
     */
    public static int bucketOf(String id) {
        MessageDigest sha1;
        try {
            sha1 = (MessageDigest) SHA1.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
        return sha1.digest(id.getBytes(StandardCharsets.UTF_8))[1] & 0xFF;
    }
}
