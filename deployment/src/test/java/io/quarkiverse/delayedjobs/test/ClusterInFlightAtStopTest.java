package io.quarkiverse.delayedjobs.test;

import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkus.test.QuarkusUnitTest;

/**
 * {@link InFlightAtStopTest} on a Redis Cluster, whose calls go on a connection per master: the calls in flight on any
 * node when the store closes, and those sent meanwhile on any node, are answered.
 */
public class ClusterInFlightAtStopTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, InFlightAtStopTest.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.clusterUrls())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "in-flight-at-stop");

    @Inject
    ReactiveDelayedScheduler reactive;

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Test
    void schedulesInFlightWhenTheStoreClosesAreAnswered() throws Exception {
        InFlightAtStopTest.assertAnsweredThenRefused(reactive, scheduler, store,
                List.of(RedisTestServer.clusterUrls().split(",")));
    }
}
