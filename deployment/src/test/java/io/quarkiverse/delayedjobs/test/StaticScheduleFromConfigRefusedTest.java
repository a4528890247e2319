package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.StartupRefusal.refusedWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A static schedule whose time zone comes from a config expression, which the build cannot check, stops the
 * application at startup when the value is no zone: the message names the handler method and the expression, then
 * the rule and the value, before anything is written to Redis.
 */
public class StaticScheduleFromConfigRefusedTest {

    private static final String PREFIX = "static-schedule-refused";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Digest.class, RedisTestServer.class, StartupRefusal.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", PREFIX)
            .overrideConfigKey("digest.zone", "Mars/Olympus_Mons")
            .assertException(e -> {
                refusedWith("The static schedule of " + Digest.class.getName() + "#send() (cron = \"0 3 * * *\","
                        + " timeZone = \"${digest.zone}\"): zone must be a known time-zone id such as Europe/Paris, was"
                        + " 'Mars/Olympus_Mons'").accept(e);
                assertEquals("*0", RedisTestServer.command(RedisTestServer.sharedUrl(), "KEYS", PREFIX + ":*"),
                        "keys written before the refusal");
            });

    static class Digest {
        @Delayed(value = "digest", cron = "0 3 * * *", timeZone = "${digest.zone}")
        void send() {
        }
    }

    @Test
    void refusesToStart() {
        fail("the application should not have started");
    }
}
