package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The settings of one queue spelled with its name in quotes and without (as an environment variable
 * {@code QUARKUS_DELAYED_JOBS_QUEUES__MIXED__CONCURRENCY} beside {@code queues.mixed.lease} in a file): SmallRye Config
 * would read one spelling and drop the other without a word, so the application refuses to start, naming both keys.
 */
public class MixedQueueSpellingTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "mixed-spelling")
            .overrideConfigKey("quarkus.delayed-jobs.queues.mixed.lease", "5s")
            .overrideConfigKey("quarkus.delayed-jobs.queues.\"mixed\".concurrency", "2")
            .assertException(refusedWith("The settings of queue 'mixed' are spelled with its name in quotes"
                    + " (quarkus.delayed-jobs.queues.\"mixed\".concurrency) and without"
                    + " (quarkus.delayed-jobs.queues.mixed.lease): SmallRye Config would read one spelling only and"
                    + " ignore the other settings. Quote the name in every key"
                    + " (quarkus.delayed-jobs.queues.\"mixed\".<setting>), as environment variables"
                    + " QUARKUS_DELAYED_JOBS_QUEUES__<QUEUE>__<SETTING> spell it too"));

    static class Handler {
        @Delayed("mixed")
        void run() {
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
