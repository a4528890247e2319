package io.quarkiverse.delayedjobs.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
@WithTestResource(RedisServerResource.class)
class TickTest {

    @Inject
    DelayedScheduler scheduler;

    @Test
    void theTickIsArmedAtTheNextWholeMinute() {
        JobInfo tick = scheduler.find("demo-tick", "demo-tick").orElseThrow();
        assertEquals("0 * * * * ?", tick.cron());
        Instant due = tick.dueAt();
        assertEquals(due.truncatedTo(ChronoUnit.MINUTES), due, "at second 0: " + due);
        assertTrue(due.isAfter(Instant.now().minusSeconds(60)) && due.isBefore(Instant.now().plusSeconds(61)),
                "within the coming minute: " + due);
    }
}
