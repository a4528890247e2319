package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.test.QuarkusUnitTest;

/**
 * No {@code quarkus.redis.hosts}, and no Redis container (the Redis Dev Service is off, as it is in effect without a
 * container runtime): the extension starts {@code redis-server} from the PATH.
 */
public class RedisServerDevServiceTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Pinger.class))
            .overrideConfigKey("quarkus.redis.devservices.enabled", "false");

    static class Pinger {
        static final CountDownLatch ran = new CountDownLatch(1);

        @Delayed("dev-services")
        void ping() {
            ran.countDown();
        }
    }

    @ConfigProperty(name = "quarkus.redis.hosts")
    String hosts;

    @Inject
    DelayedScheduler scheduler;

    @Test
    void runsJobsOnTheStartedServer() throws InterruptedException {
        assertTrue(hosts.startsWith("redis://127.0.0.1:"), hosts);
        assertEquals(ScheduleResult.CREATED, scheduler.schedule("dev-services", "ping:1", null, Duration.ofMillis(100)));
        assertTrue(Pinger.ran.await(10, TimeUnit.SECONDS));
    }
}
