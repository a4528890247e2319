package io.quarkiverse.delayedjobs.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
@WithTestResource(RedisServerResource.class)
class StartupJobsTest {

    private static final List<String> STARTUP_IDS = List.of("demo:1", "demo:2", "demo:3", "demo:4", "demo:5");

    @Inject
    Firings firings;

    @Test
    void theJobsScheduledAtStartupFireOnceEachAtTheirDueTime() {
        Map<String, Firing> byId = Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> firings.all().stream().filter(f -> STARTUP_IDS.contains(f.id()))
                        .collect(Collectors.toMap(Firing::id, Function.identity(), (a, b) -> a)),
                        fired -> fired.keySet().containsAll(STARTUP_IDS));
        for (String id : STARTUP_IDS) {
            Firing firing = byId.get(id);
            assertEquals(1, firing.attempt(), id);
            assertTrue(firing.succeeded(), id);
            assertFalse(firing.startedAt().isBefore(firing.dueAt()), id + " started before it was due: " + firing);
            // Generous bound: this machine may be busy with other builds; the point is "at its due time, not later
            // by a poll interval" (the default poll interval is 30 s).
            assertTrue(firing.latenessMs() < 5_000, id + " fired late: " + firing);
        }
        for (int i = 1; i < STARTUP_IDS.size(); i++) {
            Firing earlier = byId.get(STARTUP_IDS.get(i - 1));
            Firing later = byId.get(STARTUP_IDS.get(i));
            assertTrue(earlier.dueAt().isBefore(later.dueAt()), earlier + " / " + later);
        }
        // Once, and no more a while later (a duplicate would come after the first firing).
        Awaitility.await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> firings.all().stream().filter(f -> STARTUP_IDS.contains(f.id())).count() == STARTUP_IDS
                        .size());
    }
}
