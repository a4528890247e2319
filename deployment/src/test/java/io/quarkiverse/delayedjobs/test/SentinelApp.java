package io.quarkiverse.delayedjobs.test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/** The application of the Sentinel tests: one handler that records the jobs it ran, on a Sentinel setup of its own. */
final class SentinelApp {

    static final String QUEUE = "sentinel";

    private SentinelApp() {
    }

    /** The application on the master that {@code redis}'s Sentinel names, with its keys under {@code keyPrefix}. */
    static QuarkusUnitTest on(RedisTestServer.SentinelSetup redis, String keyPrefix) {
        return new QuarkusUnitTest()
                .withApplicationRoot(jar -> jar.addClasses(SentinelApp.class, Recorder.class, RedisTestServer.class,
                        RedisTestServer.SentinelSetup.class, SilentProxy.class))
                .overrideConfigKey("quarkus.redis.hosts", String.join(",", redis.sentinelUrls()))
                .overrideConfigKey("quarkus.redis.client-type", "sentinel")
                .overrideConfigKey("quarkus.redis.master-name", "mymaster")
                .overrideConfigKey("quarkus.delayed-jobs.key-prefix", keyPrefix);
    }

    static class Recorder {
        static final Set<String> ran = ConcurrentHashMap.newKeySet();

        @Delayed(QUEUE)
        void run(String payload, JobContext context) {
            ran.add(context.id());
        }
    }
}
