package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.runtime.devui.DelayedJobsJsonRpcService;
import io.quarkiverse.delayedjobs.runtime.devui.DelayedJobsJsonRpcService.QueueView;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A static schedule that has ended, whose last occurrence failed, leaves that occurrence as a dead letter, which still
 * holds its schedule: the page shows the schedule as not armed, not armed at a time that has passed.
 */
public class DevUiEndedScheduleTest {

    private static final Duration WAIT = Duration.ofSeconds(15);
    /** Its one occurrence, soon; kept in a system property since a QuarkusUnitTest class is loaded twice. */
    static final ZonedDateTime AT = ZonedDateTime.parse((String) System.getProperties().computeIfAbsent(
            "devui-ended-schedule.at",
            k -> ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(10).truncatedTo(ChronoUnit.SECONDS).toString()));

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Once.class, RedisTestServer.class))
            .addBuildChainCustomizer(chain -> chain.addBuildStep(context -> context
                    .produce(AdditionalBeanBuildItem.unremovableOf(DelayedJobsJsonRpcService.class)))
                    .produces(AdditionalBeanBuildItem.class).build())
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "devui-ended-schedule")
            .overrideConfigKey("quarkus.delayed-jobs.queues.once.max-attempts", "1")
            .overrideConfigKey("once.cron", AT.getSecond() + " " + AT.getMinute() + " " + AT.getHour() + " "
                    + AT.getDayOfMonth() + " " + AT.getMonthValue() + " ? " + AT.getYear());

    static class Once {
        @Delayed(value = "once", cron = "${once.cron}")
        void run() {
            throw new IllegalStateException("fails");
        }
    }

    @Inject
    DelayedJobsJsonRpcService service;

    @Inject
    DelayedScheduler scheduler;

    @Test
    void aDeadLastOccurrenceIsNotShownAsArmed() {
        assertEquals(AT.toInstant().toString(), once().nextOccurrenceAt(), "armed at its one occurrence");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> scheduler.find("once", "once").orElseThrow().state() == JobInfo.State.DEAD);
        assertNull(once().nextOccurrenceAt(), "the schedule has ended and its last occurrence is a dead letter");
    }

    private QueueView once() {
        return service.queues().await().atMost(WAIT).queues().stream().filter(q -> q.name().equals("once"))
                .findFirst().orElseThrow();
    }
}
