package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.runtime.devui.DelayedJobsJsonRpcService;
import io.quarkiverse.delayedjobs.runtime.devui.DelayedJobsJsonRpcService.QueueView;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A time zone given by a config expression that resolves to nothing means UTC to the engine, as an absent one does:
 * the Dev UI says so too, instead of an empty zone.
 */
public class DevUiCronZoneTest {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Digest.class, RedisTestServer.class))
            .addBuildChainCustomizer(chain -> chain.addBuildStep(context -> context
                    .produce(AdditionalBeanBuildItem.unremovableOf(DelayedJobsJsonRpcService.class)))
                    .produces(AdditionalBeanBuildItem.class).build())
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "devui-cron-zone");

    static class Digest {
        @Delayed(value = "dz-digest", cron = "0 3 * * *", timeZone = "${dz.digest.zone:}")
        void digest() {
        }
    }

    @Inject
    DelayedJobsJsonRpcService service;

    @Test
    void anEmptyZoneIsShownAsUtc() {
        QueueView digest = service.queues().await().atMost(WAIT).queues().get(0);
        assertEquals("dz-digest", digest.name());
        assertEquals("0 3 * * *", digest.cron());
        assertNull(digest.timeZone(), "null stands for UTC; the page shows an empty zone as '()'");
    }
}
