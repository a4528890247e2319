package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A master of a Redis Cluster frozen (SIGSTOP: the kernel still accepts connections to it, and it answers nothing) until
 * the cluster fails it over to its replica, with jobs scheduled from the freeze on, and the frozen master first in
 * {@code quarkus.redis.hosts}: the calls that reach the frozen node time out, and the slot map the engine reads again
 * then names the replica once it took over; the jobs of every shard run again while the old master stays frozen. (With
 * the poll interval of 2 s, a wake subscription left on the frozen node would be found silent within 7 s.)
 */
public class ClusterFrozenMasterTest {

    static final List<String> NODES = RedisTestServer.clusterWithReplicasUrls("frozen-master");
    static final String FROZEN = NODES.stream()
            .filter(RedisTestServer::isMaster).findFirst()
            .orElseThrow();

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Recorder.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.client-type", "cluster")
            .overrideConfigKey("quarkus.redis.hosts",
                    String.join(",", Stream.concat(Stream.of(FROZEN), NODES.stream().filter(u -> !u.equals(FROZEN)))
                            .toList()))
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "frozen")
            .overrideConfigKey("quarkus.delayed-jobs.redis-timeout", "2s")
            // The wake subscription may be on the frozen node: its heartbeat, every poll interval, finds it silent.
            .overrideConfigKey("quarkus.delayed-jobs.poll-interval", "2s");

    static class Recorder {
        static final Set<String> ran = ConcurrentHashMap.newKeySet();

        @Delayed("frozen")
        void run(String payload, JobContext context) {
            ran.add(context.id());
        }
    }

    @Inject
    DelayedScheduler scheduler;

    @Test
    void jobsOfEveryShardRunOnceTheFrozenMasterIsFailedOver() {
        scheduler.schedule("frozen", "before", "payload", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Recorder.ran.contains("before"));
        String replica = RedisTestServer.replicaOf(NODES, FROZEN);
        RedisTestServer.freeze(FROZEN);
        try {
            // Scheduled from the freeze on, before the failover too: the calls that go to the frozen node time out, and
            // the connection they went on is replaced while the frozen node still serves its slots.
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String id = "after:" + i;
                ids.add(id);
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                        .until(() -> scheduler.schedule("frozen", id, "payload", Duration.ZERO) != null);
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> RedisTestServer.isMaster(replica));
            // Within a poll interval and the 5 s a heartbeat has to come back, when the subscription was on the frozen
            // node: the worker learns of the jobs only then.
            await().atMost(Duration.ofSeconds(20)).until(() -> Recorder.ran.containsAll(ids));
        } finally {
            RedisTestServer.thaw(FROZEN);
        }
    }
}
