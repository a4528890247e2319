package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * An invalid cron expression, or one that has ended in the zone of its annotation (in every zone when the zone comes
 * from the configuration), is a build error; a config expression is left for run time.
 */
public class InvalidCronTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("cron must have 5 (Unix) or 6 or 7 (Quartz) fields, 'every day' has 2", Handlers.class,
                            "fieldCount"),
                    problem("cron must be a valid Unix 5-field or Quartz 6/7-field expression, '61 * * * *' is not:"
                            + " Failed to parse cron expression. Value 61 not in range [0, 59]", Handlers.class,
                            "outOfRange"),
                    problem("cron must match some time after now, '0 0 0 1 1 ? 2020' matches none", Handlers.class,
                            "endedInItsZone"),
                    problem("cron must match some time after now, '0 0 0 1 1 ? 2020' matches none", Handlers.class,
                            "endedInEveryZone")));

    static class Handlers {

        @Delayed(value = "daily", cron = "every day")
        void fieldCount() {
        }

        @Delayed(value = "minutes", cron = "61 * * * *")
        void outOfRange() {
        }

        @Delayed(value = "ended", cron = "0 0 0 1 1 ? 2020", timeZone = "Pacific/Kiritimati")
        void endedInItsZone() {
        }

        @Delayed(value = "ended-everywhere", cron = "0 0 0 1 1 ? 2020", timeZone = "${digest.zone}")
        void endedInEveryZone() {
        }

        @Delayed(value = "configured", cron = "${digest.cron}")
        void fromConfig() {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
