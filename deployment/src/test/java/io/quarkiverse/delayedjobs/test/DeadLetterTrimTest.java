package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.redis.Script;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.QuarkusUnitTest;
import io.vertx.mutiny.redis.client.Response;

/**
 * A job that dies removes at most a hundred of its shard's dead letters beyond the share: after {@code max-size} was
 * lowered, the excess goes over the next deaths. Before, the first death removed all of it in one script call (200,000
 * dead letters held Redis for over a second). Found by a review.
 */
public class DeadLetterTrimTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "dead-trim");

    static final int DEAD = 5_000;

    @Inject
    RedisDataSource redis;

    Response eval(String text, QueueKeys keys, List<String> args) {
        List<String> all = new ArrayList<>(List.of(text, "9"));
        all.addAll(keys.shard(0));
        all.addAll(args);
        return redis.execute("EVAL", all.toArray(String[]::new));
    }

    @Test
    void aDeathRemovesAHundredDeadLettersBeyondTheShareAtMost() {
        QueueKeys keys = new QueueKeys("dead-trim", "trim", 8);
        long now = redis.execute("TIME").get(0).toLong() * 1000;
        // DEAD dead letters within the retention, laid out as a death writes them (a larger max-size before).
        eval("for i = 1, tonumber(ARGV[1]) do local id = 'd' .. i; redis.call('HSET', KEYS[3], id, '1|3||\"p\"');"
                + " redis.call('ZADD', KEYS[4], ARGV[2], id); redis.call('HSET', KEYS[5], id, 'boom') end",
                keys, List.of(String.valueOf(DEAD), String.valueOf(now - 1000)));
        for (int death = 1; death <= 2; death++) {
            String id = "x" + death;
            eval(Script.SCHEDULE.text(), keys, List.of(keys.wakeChannel(), "0", id, "\"p\"", "0", "in", "KEEP", ""));
            Response claimed = eval(Script.CLAIM.text(), keys,
                    List.of("30000", "3", "10", "604800000", keys.wakeChannel(), "0", "1", "0", "0", "0"));
            assertEquals(1, claimed.get(3).toInteger());
            // Its last attempt failed, with a share of 10 dead letters per shard now.
            Response outcome = eval(Script.RETRY.text(), keys, List.of(id, claimed.get(5).toString(), "0", "boom", "3",
                    "10", "604800000", "dead", keys.wakeChannel(), "0", ""));
            assertEquals(2, outcome.get(0).toInteger(), "buried");
            assertEquals(DEAD + death - 100L * death, redis.execute("ZCARD", keys.shard(0).get(3)).toLong(),
                    "dead letters left after death " + death);
        }
    }
}
