package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.MisfirePolicy;
import io.quarkus.test.QuarkusUnitTest;

/**
 * An unknown time zone is a build error, and so are a time zone or misfire policy on a handler that is not recurring.
 */
public class InvalidTimeZoneTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("timeZone must be a known time-zone id such as Europe/Paris, was 'Europe/Atlantis'",
                            Handlers.class, "unknownZone"),
                    problem("timeZone and misfire apply to recurring handlers only: set cron too", Handlers.class,
                            "zoneWithoutCron"),
                    problem("timeZone and misfire apply to recurring handlers only: set cron too", Handlers.class,
                            "misfireWithoutCron")));

    static class Handlers {

        @Delayed(value = "digest", cron = "0 3 * * *", timeZone = "Europe/Atlantis")
        void unknownZone() {
        }

        @Delayed(value = "plain", timeZone = "Europe/Paris")
        void zoneWithoutCron() {
        }

        @Delayed(value = "other", misfire = MisfirePolicy.SKIP)
        void misfireWithoutCron() {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
