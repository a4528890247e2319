package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkus.test.QuarkusUnitTest;

/**
 * {@code client-type=sentinel} (or {@code replication}) and no hosts: the Dev Service does not start a plain server,
 * which such a client cannot use (a Sentinel client found no Sentinel and the application failed to start with
 * "Cannot connect to any of the provided endpoints"; a replication client waited for a replica until
 * {@code redis-timeout}), and says why and what to set instead. The application has no handler, so that it can start
 * without Redis. Found by a review helper.
 */
public class RedisServerDevServiceSentinelTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("quarkus.redis.client-type", "sentinel")
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .setLogRecordPredicate(r -> r.getLoggerName().endsWith("RedisServerDevServicesProcessor"))
            .assertLogRecords(records -> assertTrue(
                    records.stream().anyMatch(r -> r.getLevel().intValue() >= Level.WARNING.intValue()
                            && r.getMessage().contains("so they start nothing: set %s for dev mode and tests")
                            && Arrays.asList(r.getParameters()).containsAll(List.of("sentinel", "quarkus.redis.hosts"))),
                    () -> "logged: " + records.stream().map(r -> r.getMessage()).toList()));

    @Test
    void startsNoServer() {
        assertEquals(Optional.empty(), ConfigProvider.getConfig().getOptionalValue("quarkus.redis.hosts", String.class));
    }
}
