package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InterceptorBinding;
import jakarta.interceptor.InvocationContext;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.mutiny.Uni;

/**
 * A handler declared to return a {@code Uni} or {@code CompletionStage} that returns null fails its delivery, with a
 * message naming it: nothing tells when, or whether, its work ended. An NPE of the handler's own code, or of an
 * interceptor around it, keeps its message.
 */
public class NullAsyncResultTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handlers.class, Singletons.class, Audited.class,
                    FailingInterceptor.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "null-async-result")
            .overrideConfigKey("quarkus.delayed-jobs.max-attempts", "1");

    static class Handlers {
        static final AtomicInteger calls = new AtomicInteger();

        @Delayed("null-uni")
        Uni<Void> uni(String payload) {
            calls.incrementAndGet();
            return null;
        }

        @Delayed("npe-in-handler")
        Uni<Void> npe(String payload) {
            String missing = null;
            return Uni.createFrom().item(missing.length()).replaceWithVoid();
        }

        @Delayed("null-stage")
        CompletionStage<Void> stage(String payload) {
            calls.incrementAndGet();
            return null;
        }
    }

    @InterceptorBinding
    @Target({ ElementType.METHOD, ElementType.TYPE })
    @Retention(RetentionPolicy.RUNTIME)
    @interface Audited {
    }

    @Audited
    @Interceptor
    @Priority(1)
    static class FailingInterceptor {
        @AroundInvoke
        Object around(InvocationContext context) throws Exception {
            String user = null;
            user.length(); // a bug of the interceptor, before the handler runs
            return context.proceed();
        }
    }

    @ApplicationScoped
    static class Singletons {
        @Audited
        @Delayed("npe-in-interceptor")
        Uni<Void> audited(String payload) {
            return Uni.createFrom().voidItem();
        }

        @Delayed("null-uni-app-scoped")
        Uni<Void> uni(String payload) {
            return null;
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aNullUniFailsTheDelivery() {
        assertDeadWith("null-uni", Handlers.class.getName() + "#uni() returned null instead of a Uni or CompletionStage");
    }

    @Test
    void aNullCompletionStageFailsTheDelivery() {
        assertDeadWith("null-stage",
                Handlers.class.getName() + "#stage() returned null instead of a Uni or CompletionStage");
    }

    @Test
    void aNullUniOfANormalScopedBeanFailsTheDelivery() {
        assertDeadWith("null-uni-app-scoped",
                Singletons.class.getName() + "#uni() returned null instead of a Uni or CompletionStage");
    }

    @Test
    void anNpeOfTheHandlerItselfIsKeptAsItIs() {
        assertDeadWith("npe-in-handler", "java.lang.NullPointerException", "");
    }

    @Test
    void anNpeOfAnInterceptorIsKeptAsItIs() {
        assertDeadWith("npe-in-interceptor", "java.lang.NullPointerException", "Cannot invoke \"String.length()\"");
    }

    private void assertDeadWith(String queue, String error) {
        assertDeadWith(queue, "java.lang.IllegalStateException", error);
    }

    private void assertDeadWith(String queue, String exception, String error) {
        scheduler.schedule(queue, "job", "x", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> scheduler.find(queue, "job").map(JobInfo::state)
                .orElse(null) == JobInfo.State.DEAD);
        String lastError = scheduler.find(queue, "job").orElseThrow().lastError();
        assertEquals(true, lastError.startsWith(exception + ": " + error), lastError);
    }
}
