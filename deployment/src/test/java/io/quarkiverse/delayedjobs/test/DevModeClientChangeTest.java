package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusDevModeTest;

/**
 * In dev mode, a live reload after {@code redis-client-name} changed (a build-time setting) gives the extension the
 * newly named Redis client; before, the store kept the injection point of the earlier build and failed to start.
 */
public class DevModeClientChangeTest {

    static final String URL = RedisTestServer.sharedUrl();
    static final int PORT = DevModeHttp.freePort();

    @RegisterExtension
    static final QuarkusDevModeTest test = new QuarkusDevModeTest()
            .withApplicationRoot(jar -> jar.addClasses(Handler.class)
                    .addAsResource(new StringAsset("quarkus.redis.hosts=" + URL + "\n"
                            + "quarkus.redis.jobs.hosts=" + URL + "\n"
                            + "quarkus.delayed-jobs.key-prefix=dev-mode-client-change\n"
                            + "quarkus.delayed-jobs.devservices.enabled=false\n"
                            + "quarkus.redis.devservices.enabled=false\n"
                            + "quarkus.http.port=" + PORT + "\n"), "application.properties"));

    static class Handler {
        @Delayed("changing")
        void run() {
        }
    }

    @Test
    void aReloadAfterTheClientNameChangedUsesTheNamedClient() throws Exception {
        assertEquals("UP", DevModeHttp.readiness(PORT), "with the default client");
        test.modifyResourceFile("application.properties",
                properties -> properties + "quarkus.delayed-jobs.redis-client-name=jobs\n");
        assertEquals("UP", DevModeHttp.readiness(PORT), "after the reload, with the client named jobs");
        test.modifyResourceFile("application.properties",
                properties -> properties.replace("quarkus.delayed-jobs.redis-client-name=jobs\n", ""));
        assertEquals("UP", DevModeHttp.readiness(PORT), "after the reload, with the default client again");
    }
}
