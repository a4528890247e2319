package io.quarkiverse.delayedjobs.runtime.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The Redis key layout of one queue. Every key of a shard shares the hash tag {@code {queue:shard}}, so that one
 * script touches one cluster slot; a job lives in the shard {@code crc32(utf8(id)) mod shards}.
 */
public final class QueueKeys {

    private static final String[] SHARD_KEY_NAMES = { "due", "run", "jobs", "dead", "err", "seq", "cron", "ix" };

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

    /** The eight keys of a shard, in the order every script takes them (see {@code common.lua}). */
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
}
