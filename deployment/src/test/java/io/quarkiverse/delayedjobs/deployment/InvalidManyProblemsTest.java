package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;

/**
 * One build reports every broken rule of every handler at once, not just the first one found.
 */
public class InvalidManyProblemsTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem("The queue name must match [A-Za-z0-9._-]{1,64}, was 'bad name'", Handlers.class, "badName"),
                    problem("A @Delayed method must not be private", Handlers.class, "badName"),
                    problem("A @Delayed method must not be static", Handlers.class, "everythingWrong"),
                    problem("A @Delayed method may declare at most one JobContext parameter, found 2", Handlers.class,
                            "everythingWrong"),
                    problem("The payload parameter must not be a primitive type, was long; use its wrapper class",
                            Handlers.class, "everythingWrong"),
                    problem("A @Delayed method must return void, Uni<Void> or CompletionStage<Void>, was"
                            + " io.smallrye.mutiny.Uni<java.lang.Integer>", Handlers.class, "everythingWrong"),
                    problem("A @Delayed method must not be annotated both @NonBlocking and @Blocking", Handlers.class,
                            "everythingWrong"),
                    problem("Queue 'fine' already has a handler, " + Handlers.class.getName()
                            + "#fine(); a queue has exactly one @Delayed method", Handlers.class, "sameQueue")));

    static class Handlers {

        @Delayed("bad name")
        private void badName() {
        }

        @Blocking
        @NonBlocking
        @Delayed("everything-wrong")
        static Uni<Integer> everythingWrong(JobContext first, long id, JobContext second) {
            return Uni.createFrom().item(1);
        }

        @Delayed("fine")
        void fine() {
        }

        @Delayed("fine")
        void sameQueue() {
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
