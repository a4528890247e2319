package io.quarkiverse.delayedjobs.runtime.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.quarkus.runtime.configuration.ConfigurationException;
import io.quarkus.runtime.configuration.DurationConverter;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.runtime.configuration.MemorySizeConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * The refusals name the keys to fix, which dev mode offers to edit. {@code QuarkusUnitTest} copies a startup exception
 * by its message and cause only, so the keys are checked here, on the mapping Quarkus builds, with its converters.
 */
class ConfigCheckTest {

    @Test
    void theDefaultsPass() {
        assertDoesNotThrow(() -> ConfigCheck.check(config(Map.of())));
    }

    @Test
    void aSettingOutOfItsRangeNamesItsKey() {
        ConfigurationException e = refused(Map.of("quarkus.delayed-jobs.poll-interval", "0s"));
        assertEquals("quarkus.delayed-jobs.poll-interval must be at least 1ms, was PT0S", e.getMessage());
        assertEquals(Set.of("quarkus.delayed-jobs.poll-interval"), e.getConfigKeys());
    }

    /** Each claim of a missed occurrence looks that many occurrences back, on an event loop. */
    @Test
    void theCatchUpLimitHasAnUpperBound() {
        assertEquals("quarkus.delayed-jobs.catch-up-limit must be 1 to 1000, was 1001",
                refused(Map.of("quarkus.delayed-jobs.catch-up-limit", "1001")).getMessage());
        assertDoesNotThrow(() -> ConfigCheck.check(config(Map.of("quarkus.delayed-jobs.catch-up-limit", "1000"))));
    }

    @Test
    void aQueueOverrideOutOfItsRangeNamesTheQueuesKey() {
        ConfigurationException e = refused(Map.of("quarkus.delayed-jobs.queues.\"billing\".batch-size", "0"));
        assertEquals("quarkus.delayed-jobs.queues.\"billing\".batch-size must be at least 1, was 0", e.getMessage());
        assertEquals(Set.of("quarkus.delayed-jobs.queues.\"billing\".batch-size"), e.getConfigKeys());
    }

    @Test
    void aRuleOfTwoSettingsNamesBoth() {
        ConfigurationException e = refused(Map.of("quarkus.delayed-jobs.backoff.initial", "2h"));
        assertEquals(Set.of("quarkus.delayed-jobs.backoff.initial", "quarkus.delayed-jobs.backoff.max"),
                e.getConfigKeys());
    }

    @Test
    void workerSettingsOfAQueueWithNoHandlerHereAreNamed() {
        DelayedJobsRuntimeConfig config = config(Map.of(
                "quarkus.delayed-jobs.queues.\"flakyy\".max-attempts", "3",
                "quarkus.delayed-jobs.queues.\"flakyy\".backoff.initial", "2s",
                "quarkus.delayed-jobs.queues.\"flaky\".lease", "1m"));
        assertEquals(List.of("quarkus.delayed-jobs.queues.\"flakyy\" sets max-attempts, backoff.initial, but no @Delayed"
                + " method of this application handles queue 'flakyy', and only a queue's workers read these settings"
                + " (queues handled here: [flaky, orders])"),
                ConfigCheck.unhandledQueueSettings(config, Set.of("orders", "flaky")));
    }

    @Test
    void producerSettingsOfAQueueWithNoHandlerHereAreNotNamed() {
        DelayedJobsRuntimeConfig config = config(Map.of(
                "quarkus.delayed-jobs.queues.\"elsewhere\".shards", "4",
                "quarkus.delayed-jobs.queues.\"elsewhere\".schedule-linger", "5ms"));
        assertEquals(List.of(), ConfigCheck.unhandledQueueSettings(config, Set.of("orders")));
    }

    @Test
    void aProducerOnlyInstanceNamesNoQueue() {
        DelayedJobsRuntimeConfig config = config(Map.of("quarkus.delayed-jobs.enabled", "false",
                "quarkus.delayed-jobs.queues.\"elsewhere\".lease", "1m"));
        assertEquals(List.of(), ConfigCheck.unhandledQueueSettings(config, Set.of()));
    }

    @Test
    void anOverrideUnderANameNoQueueCanHaveNamesIt() {
        ConfigurationException e = refused(Map.of("quarkus.delayed-jobs.queues.\"help email\".lease", "1m"));
        assertEquals(Set.of("quarkus.delayed-jobs.queues.\"help email\""), e.getConfigKeys());
    }

    @Test
    void aQueueSpelledWithAndWithoutQuotesIsRefusedNamingBothKeys() {
        String unquoted = "quarkus.delayed-jobs.queues.reports.concurrency";
        // How SmallRye lists the environment variable QUARKUS_DELAYED_JOBS_QUEUES__REPORTS__LEASE.
        String quoted = "quarkus.delayed-jobs.queues.\"reports\".lease";
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> ConfigCheck.checkQueueSpellings(List.of("quarkus.redis.hosts", unquoted, quoted), List.of()));
        assertEquals(Set.of(unquoted, quoted), e.getConfigKeys());
        assertTrue(e.getMessage().startsWith("The settings of queue 'reports' are spelled with its name in quotes ("
                + quoted + ") and without (" + unquoted + ")"), e.getMessage());
        // Those of a profile count when it is active.
        assertThrows(ConfigurationException.class, () -> ConfigCheck.checkQueueSpellings(
                List.of("%prod." + unquoted, "%prod." + quoted), List.of("prod")));
    }

    @Test
    void oneSpellingPerQueuePasses() {
        assertDoesNotThrow(() -> ConfigCheck.checkQueueSpellings(List.of(
                "quarkus.delayed-jobs.queues.\"reports\".concurrency", "quarkus.delayed-jobs.queues.\"reports\".lease",
                "quarkus.delayed-jobs.queues.billing.lease", "quarkus.delayed-jobs.queues.billing.concurrency",
                "quarkus.delayed-jobs.queues.\"help-email\".lease", "quarkus.delayed-jobs.queues.help_email.lease",
                "%dev.quarkus.delayed-jobs.queues.audit.lease", "%prod.quarkus.delayed-jobs.queues.\"audit\".lease"),
                List.of("prod")));
    }

    private static ConfigurationException refused(Map<String, String> properties) {
        DelayedJobsRuntimeConfig config = config(properties);
        return assertThrows(ConfigurationException.class, () -> ConfigCheck.check(config));
    }

    private static DelayedJobsRuntimeConfig config(Map<String, String> properties) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withConverter(Duration.class, 200, new DurationConverter())
                .withConverter(MemorySize.class, 200, new MemorySizeConverter())
                .withMapping(DelayedJobsRuntimeConfig.class)
                .withSources(new PropertiesConfigSource(properties, "test", 100))
                .build();
        return config.getConfigMapping(DelayedJobsRuntimeConfig.class);
    }
}
