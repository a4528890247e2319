package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;

/**
 * A return type other than {@code void}, {@code Uni<Void>} or {@code CompletionStage<Void>} is a build error: a
 * handler's result would be thrown away.
 */
public class InvalidReturnTypeTest {

    private static final String RULE = "A @Delayed method must return void, Uni<Void> or CompletionStage<Void>, was ";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem(RULE + "java.lang.String", Handlers.class, "string"),
                    problem(RULE + "io.smallrye.mutiny.Uni<java.lang.String>", Handlers.class, "uniOfString"),
                    problem(RULE + "io.smallrye.mutiny.Uni", Handlers.class, "rawUni"),
                    problem(RULE + "java.util.concurrent.CompletionStage<java.lang.Integer>", Handlers.class,
                            "stageOfInteger"),
                    problem(RULE + "java.util.concurrent.CompletableFuture<java.lang.Void>", Handlers.class,
                            "completableFuture")));

    static class Handlers {

        @Delayed("string")
        String string() {
            return "done";
        }

        @Delayed("uni-of-string")
        Uni<String> uniOfString() {
            return Uni.createFrom().item("done");
        }

        @SuppressWarnings("rawtypes")
        @Delayed("raw-uni")
        Uni rawUni() {
            return Uni.createFrom().voidItem();
        }

        @Delayed("stage-of-integer")
        CompletionStage<Integer> stageOfInteger() {
            return CompletableFuture.completedFuture(1);
        }

        @Delayed("completable-future")
        CompletableFuture<Void> completableFuture() {
            return CompletableFuture.completedFuture(null);
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
