package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.arc.Arc;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.NonBlocking;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;

/**
 * Each kind of handler runs on the thread its signature and annotations ask for, with the request context active.
 */
public class ThreadModelTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, TransactionalBase.class,
                    TransactionalHandlers.class, RequestState.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "threads");

    /** Where a handler ran. */
    record Seen(boolean eventLoop, boolean worker, boolean virtual, boolean requestContext) {
    }

    static final Seen EVENT_LOOP = new Seen(true, false, false, true);
    static final Seen WORKER = new Seen(false, true, false, true);
    static final Seen VIRTUAL = new Seen(false, false, true, true);

    @RequestScoped
    static class RequestState {
        int touched;
    }

    static class Handlers {
        static final Map<String, Seen> seen = new ConcurrentHashMap<>();

        @Inject
        RequestState requestState;

        void record(String queue) {
            requestState.touched++;
            boolean virtual;
            try {
                virtual = (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("virtual threads need JDK 21+", e);
            }
            seen.put(queue, new Seen(Context.isOnEventLoopThread(), Context.isOnWorkerThread(), virtual,
                    Arc.container().requestContext().isActive()));
        }

        @Delayed("plain-void")
        void plainVoid() {
            record("plain-void");
        }

        @Delayed("non-blocking-void")
        @NonBlocking
        void nonBlockingVoid() {
            record("non-blocking-void");
        }

        @Delayed("uni")
        Uni<Void> uni() {
            record("uni");
            return Uni.createFrom().voidItem();
        }

        @Delayed("blocking-uni")
        @Blocking
        Uni<Void> blockingUni() {
            record("blocking-uni");
            return Uni.createFrom().voidItem();
        }

        @Delayed("completion-stage")
        CompletionStage<Void> completionStage() {
            record("completion-stage");
            return CompletableFuture.completedFuture(null);
        }

        @Delayed("virtual")
        @RunOnVirtualThread
        void virtual() {
            record("virtual");
        }

        @Delayed("transactional-uni")
        @Transactional
        Uni<Void> transactionalUni() {
            record("transactional-uni");
            return Uni.createFrom().voidItem();
        }

    }

    /** A transaction cannot start on an event loop: @Transactional, on the method or the class, means a worker. */
    @Transactional
    abstract static class TransactionalBase {
    }

    /** Inherits @Transactional from its superclass, as an interceptor binding is. */
    @ApplicationScoped
    static class TransactionalHandlers extends TransactionalBase {
        @Inject
        Handlers handlers;

        @Delayed("transactional-class-stage")
        CompletionStage<Void> stage() {
            handlers.record("transactional-class-stage");
            return CompletableFuture.completedFuture(null);
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void eachHandlerRunsOnTheThreadItAsksFor() {
        for (String queue : new String[] { "plain-void", "non-blocking-void", "uni", "blocking-uni", "completion-stage",
                "virtual", "transactional-uni", "transactional-class-stage" }) {
            scheduler.schedule(queue, "job", null, Duration.ZERO);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> Handlers.seen.size() == 8);
        assertEquals(WORKER, Handlers.seen.get("plain-void"));
        assertEquals(EVENT_LOOP, Handlers.seen.get("non-blocking-void"));
        assertEquals(EVENT_LOOP, Handlers.seen.get("uni"));
        assertEquals(WORKER, Handlers.seen.get("blocking-uni"));
        assertEquals(EVENT_LOOP, Handlers.seen.get("completion-stage"));
        assertEquals(VIRTUAL, Handlers.seen.get("virtual"));
        assertEquals(WORKER, Handlers.seen.get("transactional-uni"));
        assertEquals(WORKER, Handlers.seen.get("transactional-class-stage"));
    }
}
