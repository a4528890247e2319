package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code quarkus.delayed-jobs.devservices.enabled=false}: no {@code redis-server} is started, so the Redis client stays
 * without hosts. The application has no handler, so that it can start without Redis.
 */
public class RedisServerDevServiceDisabledTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("quarkus.delayed-jobs.devservices.enabled", "false")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");

    @Test
    void startsNoServer() {
        assertEquals(Optional.empty(), ConfigProvider.getConfig().getOptionalValue("quarkus.redis.hosts", String.class));
    }
}
