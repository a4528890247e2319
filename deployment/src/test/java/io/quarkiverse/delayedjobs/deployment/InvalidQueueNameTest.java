package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A queue name outside {@code [A-Za-z0-9._-]{1,64}} is a build error, one that looks like a config expression with a
 * hint; a name of exactly 64 allowed characters is not.
 */
public class InvalidQueueNameTest {

    private static final String RULE = "The queue name must match [A-Za-z0-9._-]{1,64}, was ";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem(RULE + "''", Handlers.class, "empty"),
                    problem(RULE + "'help email'", Handlers.class, "space"),
                    problem(RULE + "'help:email'", Handlers.class, "colon"),
                    problem(RULE + "'{help}'", Handlers.class, "braces"),
                    problem(RULE + "'${queue.name}' (a queue name is fixed at build time: config expressions are read in"
                            + " cron and timeZone only)", Handlers.class, "expression"),
                    problem(RULE + "'sixty-five-chars-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'", Handlers.class,
                            "tooLong")));

    static class Handlers {

        @Delayed("")
        void empty() {
        }

        @Delayed("help email")
        void space() {
        }

        @Delayed("help:email")
        void colon() {
        }

        @Delayed("{help}")
        void braces() {
        }

        @Delayed("${queue.name}")
        void expression() {
        }

        @Delayed("sixty-five-chars-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
        void tooLong() {
        }

        @Delayed("exactly-64.chars_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
        void longest() {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
