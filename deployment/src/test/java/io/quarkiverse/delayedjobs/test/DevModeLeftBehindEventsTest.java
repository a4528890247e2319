package io.quarkiverse.delayedjobs.test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.logging.LogRecord;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.JobSucceeded;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.test.QuarkusDevModeTest;

/**
 * In dev mode, a handler left behind by a live reload (still running after {@code shutdown-timeout}) that ends once
 * the new code runs fires no event: the observers of the stopped application would have put instances of their old
 * classes into the new application's contexts, and every observer of the new code then failed with a
 * {@code ClassCastException} until the next reload.
 */
public class DevModeLeftBehindEventsTest {

    static final String URL = RedisTestServer.sharedUrl();
    static final int PORT = DevModeHttp.freePort();
    /** Set by the second application as it starts: the handler left behind by the first one ends then. */
    static final String RELEASE = "delayed-jobs.test.left-behind.release";

    @RegisterExtension
    static final QuarkusDevModeTest test = new QuarkusDevModeTest()
            .withApplicationRoot(jar -> jar.addClasses(Startup.class, Handlers.class, Alerts.class)
                    .addAsResource(new StringAsset("quarkus.redis.hosts=" + URL + "\n"
                            + "quarkus.delayed-jobs.key-prefix=dev-mode-left-behind" + ProcessHandle.current().pid()
                            + "\n"
                            + "quarkus.delayed-jobs.devservices.enabled=false\n"
                            + "quarkus.redis.devservices.enabled=false\n"
                            + "quarkus.delayed-jobs.shutdown-timeout=500ms\n"
                            + "quarkus.http.port=" + PORT + "\n"
                            + "app.generation=one\n"), "application.properties"))
            .setLogRecordPredicate(r -> true);

    @ApplicationScoped
    static class Startup {
        @Inject
        DelayedScheduler scheduler;

        @ConfigProperty(name = "app.generation")
        String generation;

        void start(@Observes StartupEvent event) {
            if (generation.equals("one")) {
                scheduler.schedule("left-behind", "slow", "", Duration.ZERO);
                scheduler.schedule("quick", "quick-one", "", Duration.ZERO);
            } else {
                System.setProperty(RELEASE, generation);
                // Due once the handler left behind has ended and its events, if any, were fired.
                scheduler.schedule("quick", "quick-" + generation, "", Duration.ofSeconds(2));
            }
        }
    }

    @ApplicationScoped
    static class Handlers {
        private static final Logger LOG = Logger.getLogger(Handlers.class);

        /** Runs until the next application has started, through the interruptions of the reload. */
        @Delayed("left-behind")
        void leftBehind() {
            LOG.info("left-behind started");
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.getProperty(RELEASE) == null && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    // The reload stops the worker threads; this handler goes on regardless, as a slow one would.
                }
            }
            LOG.info("left-behind ended");
        }

        @Delayed("quick")
        void quick() {
        }
    }

    /** Created by its first event: the new application's, unless one of the old application got there first. */
    @ApplicationScoped
    static class Alerts {
        private static final Logger LOG = Logger.getLogger(Alerts.class);

        void told(@Observes JobSucceeded event) {
            LOG.info("told of " + event.job().id());
        }

        void toldAsync(@ObservesAsync JobSucceeded event) {
            LOG.info("told asynchronously of " + event.job().id());
        }
    }

    @Test
    void theNewObserversAreToldAfterAHandlerLeftBehindEnds() throws Exception {
        assertEquals("UP", DevModeHttp.readiness(PORT));
        awaitLogged("told of quick-one");
        awaitLogged("left-behind started");
        test.modifyResourceFile("application.properties", p -> p.replace("app.generation=one", "app.generation=two"));
        assertEquals("UP", DevModeHttp.readiness(PORT), "after the reload");
        awaitLogged("left-behind ended");
        awaitLogged("told of quick-two");
        awaitLogged("told asynchronously of quick-two");
        assertEquals(List.of(), test.getLogRecords().stream().filter(DevModeLeftBehindEventsTest::classCast)
                .map(DevModeLeftBehindEventsTest::text).toList());
    }

    private static void awaitLogged(String message) {
        await(message).atMost(Duration.ofSeconds(30))
                .until(() -> test.getLogRecords().stream().anyMatch(r -> message.equals(r.getMessage())));
    }

    private static boolean classCast(LogRecord record) {
        for (Throwable e = record.getThrown(); e != null; e = e.getCause()) {
            if (e instanceof ClassCastException) {
                return true;
            }
        }
        return text(record).contains("ClassCastException");
    }

    private static String text(LogRecord record) {
        return record.getMessage() + " " + record.getThrown();
    }
}
