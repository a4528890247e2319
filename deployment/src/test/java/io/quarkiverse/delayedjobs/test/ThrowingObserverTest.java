package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobFailed;
import io.quarkiverse.delayedjobs.JobSucceeded;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A synchronous observer that throws, an exception or an {@link Error}, does not keep the event from the observers told
 * after it (CDI's {@code fire()} stops at the first that throws), and observers are told in the order of their priorities,
 * within a request context.
 */
public class ThrowingObserverTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, Observers.class, PerRequest.class,
                    RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "throwing-observer")
            .overrideConfigKey("quarkus.delayed-jobs.queues.told.backoff.initial", "100ms");

    static class Handler {
        static final AtomicInteger flakyRuns = new AtomicInteger();

        @Delayed("told")
        void run(JobContext job) {
            if (job.id().startsWith("flaky") && flakyRuns.incrementAndGet() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
        }
    }

    @RequestScoped
    static class PerRequest {
        String name() {
            return "request-scoped";
        }
    }

    static class Observers {
        static final List<String> told = new CopyOnWriteArrayList<>();

        @Inject
        PerRequest perRequest;

        void first(@Observes @Priority(1) JobSucceeded event) {
            told.add("first " + event.job().id());
            throw new IllegalStateException("first observer fails");
        }

        /** An Error, as an assertion written in an observer throws: the observers after it are told all the same. */
        void firstOfFailures(@Observes @Priority(1) JobFailed event) {
            throw new AssertionError("first observer fails");
        }

        void second(@Observes @Priority(2) JobSucceeded event) {
            told.add("second " + event.job().id() + " " + perRequest.name());
        }

        void secondOfFailures(@Observes @Priority(2) JobFailed event) {
            told.add("second failed " + event.job().id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theObserversAfterOneThatThrowsAreToldToo() {
        scheduler.schedule("told", "ok:1", null, Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Observers.told.contains("second ok:1 request-scoped"));
        assertEquals(List.of("first ok:1", "second ok:1 request-scoped"), Observers.told);

        Observers.told.clear();
        scheduler.schedule("told", "flaky:1", null, Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Observers.told.contains("second flaky:1 request-scoped"));
        assertEquals(List.of("second failed flaky:1", "first flaky:1", "second flaky:1 request-scoped"),
                Observers.told);
    }
}
