package io.quarkiverse.delayedjobs.runtime.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import io.vertx.core.net.NetClientOptions;
import io.vertx.redis.client.RedisOptions;

/** The engine's copy of a client's options has metrics names of its own, and leaves the client's options alone. */
class RedisClientOptionsTest {

    @Test
    void theCopyIsNamedForTheEngineAndTheClientKeepsItsNames() {
        RedisOptions client = new RedisOptions().setPoolName("<default>")
                .setNetClientOptions(new NetClientOptions().setMetricsName("redis|<default>").setConnectTimeout(1234));
        RedisClientOptions options = new RedisClientOptions();
        options.customize("<default>", client);

        RedisOptions copy = options.copyOf("<default>");

        assertEquals("delayed-jobs", copy.getPoolName());
        assertEquals("redis|delayed-jobs", copy.getNetClientOptions().getMetricsName());
        assertEquals(1234, copy.getNetClientOptions().getConnectTimeout(), "the client's network options, copied");
        assertEquals("<default>", client.getPoolName());
        assertEquals("redis|<default>", client.getNetClientOptions().getMetricsName());
    }
}
