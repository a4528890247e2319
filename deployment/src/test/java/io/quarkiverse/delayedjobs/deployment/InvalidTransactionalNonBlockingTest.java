package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.BuildProblems.assertReported;
import static io.quarkiverse.delayedjobs.deployment.BuildProblems.problem;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.inject.Stereotype;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.mutiny.Uni;

/**
 * {@code @Transactional}, on the method, its class or a stereotype of its class, together with {@code @NonBlocking} is
 * a build error when it starts a transaction (REQUIRED, the default, or REQUIRES_NEW): one cannot start on the event
 * loop, so every delivery would fail. A method that opts out ({@code NOT_SUPPORTED}, {@code SUPPORTS}, {@code NEVER})
 * may run there.
 */
public class InvalidTransactionalNonBlockingTest {

    static final String RULE = "A @Transactional @Delayed method must not be annotated @NonBlocking: a transaction"
            + " cannot start on the event loop";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, TransactionalHandlers.class,
                    TransactionalService.class, Tasks.class, StereotypedHandlers.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false")
            .assertException(failure -> assertReported(failure,
                    problem(RULE, Handlers.class, "method"),
                    problem(RULE, Handlers.class, "requiresNew"),
                    problem(RULE, TransactionalHandlers.class, "stage"),
                    problem(RULE, StereotypedHandlers.class, "stereotyped")));

    static class Handlers {

        @Transactional
        @NonBlocking
        @Delayed("method")
        Uni<Void> method() {
            return Uni.createFrom().voidItem();
        }

        @Transactional(TxType.REQUIRES_NEW)
        @NonBlocking
        @Delayed("requires-new")
        Uni<Void> requiresNew() {
            return Uni.createFrom().voidItem();
        }
    }

    @Transactional
    static class TransactionalHandlers {

        @NonBlocking
        @Delayed("class")
        CompletionStage<Void> stage() {
            return null;
        }

        /** Opts out of its class's transaction: nothing to start, so the event loop is fine. */
        @Transactional(TxType.NOT_SUPPORTED)
        @NonBlocking
        @Delayed("not-supported")
        CompletionStage<Void> notSupported() {
            return null;
        }
    }

    /** A stereotype that binds {@code @Transactional}. */
    @Stereotype
    @Transactional
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface TransactionalService {
    }

    /** A stereotype that takes the one above in turn. */
    @Stereotype
    @TransactionalService
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface Tasks {
    }

    @Tasks
    static class StereotypedHandlers {

        @NonBlocking
        @Delayed("stereotyped")
        Uni<Void> stereotyped() {
            return Uni.createFrom().voidItem();
        }
    }

    @Test
    void buildFails() {
        fail("The build should have failed");
    }
}
