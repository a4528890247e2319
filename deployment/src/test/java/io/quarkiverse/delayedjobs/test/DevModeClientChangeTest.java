package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkus.test.QuarkusDevModeTest;
import io.vertx.core.json.JsonObject;

/**
 * In dev mode, a live reload after {@code redis-client-name} changed (a build-time setting) gives the extension the
 * newly named Redis client; before, the store kept the injection point of the earlier build and failed to start.
 */
public class DevModeClientChangeTest {

    static final String URL = RedisTestServer.sharedUrl();
    static final int PORT = freePort();

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
        assertEquals("UP", readiness(), "with the default client");
        test.modifyResourceFile("application.properties",
                properties -> properties + "quarkus.delayed-jobs.redis-client-name=jobs\n");
        assertEquals("UP", readiness(), "after the reload, with the client named jobs");
        test.modifyResourceFile("application.properties",
                properties -> properties.replace("quarkus.delayed-jobs.redis-client-name=jobs\n", ""));
        assertEquals("UP", readiness(), "after the reload, with the default client again");
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The status of the readiness endpoint; the request makes dev mode reload a changed application first. */
    private static String readiness() throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> response = client
                .send(HttpRequest.newBuilder(URI.create("http://localhost:" + PORT + "/q/health/ready"))
                        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 || response.statusCode() == 503
                ? new JsonObject(response.body()).getString("status")
                : response.statusCode() + " " + response.body();
    }
}
