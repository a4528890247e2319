package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.inject.Stereotype;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.Transactional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.builder.Version;
import io.quarkus.maven.dependency.Dependency;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;

/**
 * With a transaction manager (Narayana), a {@code @Transactional} handler runs inside a transaction, a {@code Uni}
 * handler too, and one whose class has {@code @Transactional} through a stereotype: it runs on a worker thread, where
 * a transaction can start (on the event loop it cannot).
 */
public class TransactionalHandlerTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, TransactionalService.class,
                    StereotypedHandlers.class, RedisTestServer.class))
            .setForcedDependencies(List.of(
                    Dependency.of("io.quarkus", "quarkus-narayana-jta-deployment", Version.getVersion())))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "transactional-handler");

    static class Handlers {
        static final Map<String, Integer> status = new ConcurrentHashMap<>();
        static final CountDownLatch ran = new CountDownLatch(3);

        @Inject
        TransactionManager transactions;

        @Delayed("transactional-void")
        @Transactional
        void plain() throws SystemException {
            status.put("transactional-void", transactions.getStatus());
            ran.countDown();
        }

        @Delayed("transactional-uni")
        @Transactional
        Uni<Void> uni() throws SystemException {
            status.put("transactional-uni", transactions.getStatus());
            ran.countDown();
            return Uni.createFrom().voidItem();
        }
    }

    /** A stereotype that binds {@code @Transactional}. */
    @Stereotype
    @Transactional
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface TransactionalService {
    }

    /** Transactional through its stereotype only. */
    @TransactionalService
    static class StereotypedHandlers {

        @Inject
        TransactionManager transactions;

        @Delayed("stereotyped-uni")
        Uni<Void> uni() throws SystemException {
            Handlers.status.put("stereotyped-uni", transactions.getStatus());
            Handlers.ran.countDown();
            return Uni.createFrom().voidItem();
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void eachRunsInATransaction() throws InterruptedException {
        scheduler.schedule("transactional-void", "job", null, Duration.ZERO);
        scheduler.schedule("transactional-uni", "job", null, Duration.ZERO);
        scheduler.schedule("stereotyped-uni", "job", null, Duration.ZERO);
        assertTrue(Handlers.ran.await(10, TimeUnit.SECONDS), "ran: " + Handlers.status);
        assertEquals(Map.of("transactional-void", Status.STATUS_ACTIVE, "transactional-uni", Status.STATUS_ACTIVE,
                "stereotyped-uni", Status.STATUS_ACTIVE),
                Handlers.status);
    }
}
