package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Vetoed;
import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine.StartedWorker;
import io.quarkus.arc.profile.IfBuildProfile;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A handler whose class this build leaves out of the beans on purpose (another build profile, exclude-types, an
 * alternative not selected, @Vetoed), itself or through the subclass that would inherit it, is no build error: it
 * runs in the builds that have it. Only the handlers of this build get workers.
 */
public class ExcludedHandlerTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Present.class, ProdOnly.class, InheritedBase.class,
                    ProdOnlySubclass.class, Excluded.class, NotSelected.class, VetoedHandler.class, RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "excluded-handler")
            .overrideConfigKey("quarkus.arc.exclude-types", Excluded.class.getName());

    static class Present {
        @Delayed("present")
        void run() {
        }
    }

    @IfBuildProfile("prod")
    @ApplicationScoped
    static class ProdOnly {
        @Delayed("prod-only")
        void run() {
        }
    }

    abstract static class InheritedBase {
        @Delayed("inherited-in-prod")
        void run() {
        }
    }

    @IfBuildProfile("prod")
    @ApplicationScoped
    static class ProdOnlySubclass extends InheritedBase {
    }

    static class Excluded {
        @Delayed("excluded")
        void run() {
        }
    }

    @Alternative
    @ApplicationScoped
    static class NotSelected {
        @Delayed("not-selected")
        void run() {
        }
    }

    @Vetoed
    static class VetoedHandler {
        @Delayed("vetoed")
        void run() {
        }
    }

    @Inject
    DelayedJobsEngine engine;

    @Test
    void onlyTheHandlersOfThisBuildRun() {
        assertEquals(List.of("present"), engine.startedWorkers().stream().map(StartedWorker::queue).toList());
    }
}
