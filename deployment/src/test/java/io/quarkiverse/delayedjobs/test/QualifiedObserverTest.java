package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobFailed;
import io.quarkiverse.delayedjobs.JobSucceeded;
import io.quarkus.test.QuarkusUnitTest;

/**
 * The events are fired as CDI's {@code Event.fire()} fires an event without qualifiers, which then has {@code @Default}
 * and {@code @Any}: observers declaring either are told, synchronous or asynchronous, and one with another qualifier is
 * not (found by a review helper: those declaring {@code @Any} or {@code @Default} were told nothing).
 */
public class QualifiedObserverTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class, Observers.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "qualified-observer")
            .overrideConfigKey("quarkus.delayed-jobs.queues.observed.max-attempts", "1");

    static class Handler {
        @Delayed("observed")
        void run(JobContext job) {
            if (job.id().equals("fails")) {
                throw new IllegalStateException("fails");
            }
        }
    }

    static class Observers {
        static final List<String> told = new CopyOnWriteArrayList<>();

        void any(@Observes @Any JobSucceeded event) {
            told.add("any " + event.job().id());
        }

        void byDefault(@Observes @Default JobSucceeded event) {
            told.add("default " + event.job().id());
        }

        void named(@Observes @Named("other") JobSucceeded event) {
            told.add("named " + event.job().id());
        }

        /** The only observer of its type: asynchronous, with @Any. */
        void anyAsync(@ObservesAsync @Any JobFailed event) {
            told.add("async any " + event.job().id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void observersOfDefaultAndAnyAreTold() {
        scheduler.schedule("observed", "works", null, Duration.ZERO);
        scheduler.schedule("observed", "fails", null, Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Observers.told.size() >= 3);
        // The observer of another qualifier would have been told with those of the same event.
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                .until(() -> Observers.told.stream().noneMatch(told -> told.startsWith("named")));
        assertEquals(List.of("any works", "async any fails", "default works"),
                Observers.told.stream().sorted().toList());
    }
}
