package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.HealthEndpoints.READY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A cluster node that serves no slot yet (the application started before the cluster was created), reached with a
 * password in its URL: the errors name the node by host and port, never with the password. Before, the whole URL went
 * into the exception the caller gets, the readiness check's answer and the log. Found by a review helper.
 */
public class ClusterCredentialsInMessagesTest {

    private static final String PASSWORD = "s3cr3t-in-url";

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, HealthEndpoints.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.slotlessClusterNodeUrl(PASSWORD))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "credentials")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "2s")
            .overrideConfigKey("quarkus.redis.health.enabled", "false");

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theErrorsNameTheNodeWithoutItsPassword() {
        String address = RedisTestServer.slotlessClusterNodeUrl(PASSWORD).replace("redis://:" + PASSWORD + "@", "");
        DelayedJobsException e = assertThrows(DelayedJobsException.class,
                () -> scheduler.schedule("q", "job", null, Duration.ZERO));
        StringBuilder messages = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        assertTrue(messages.toString().contains("The node " + address + " knows no slot of the cluster"),
                messages.toString());
        assertFalse(messages.toString().contains(PASSWORD), messages.toString());

        HealthEndpoints.Answer ready = HealthEndpoints.get(READY);
        assertEquals(503, ready.status(), ready.body());
        assertTrue(ready.body().contains("knows no slot"), ready.body());
        assertFalse(ready.body().contains(PASSWORD), ready.body());
    }
}
