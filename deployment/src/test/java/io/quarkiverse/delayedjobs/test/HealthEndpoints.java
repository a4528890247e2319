package io.quarkiverse.delayedjobs.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.eclipse.microprofile.config.ConfigProvider;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The SmallRye Health endpoints of the application under test, called over HTTP. Each {@link HttpClient} of
 * {@link #newClient()} opens a connection of its own and keeps it for its later calls, so a test knows which event
 * loop of the HTTP server serves them.
 */
final class HealthEndpoints {

    static final String READY = "/q/health/ready";
    static final String LIVE = "/q/health/live";
    static final String READINESS_CHECK = "Delayed jobs";
    static final String LIVENESS_CHECK = "Delayed jobs workers";

    /** An answer of an endpoint: its HTTP status and its body. */
    record Answer(int status, String body) {

        JsonObject json() {
            return new JsonObject(body);
        }

        /** The check of that name, or null when the answer has none. */
        JsonObject check(String name) {
            JsonArray checks = json().getJsonArray("checks");
            for (int i = 0; i < checks.size(); i++) {
                if (name.equals(checks.getJsonObject(i).getString("name"))) {
                    return checks.getJsonObject(i);
                }
            }
            return null;
        }
    }

    private static final HttpClient CLIENT = newClient();

    private HealthEndpoints() {
    }

    static HttpClient newClient() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    static Answer get(String path) {
        return get(CLIENT, path);
    }

    static Answer get(HttpClient client, String path) {
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(30)).build();
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The extension's readiness check, as {@link #READY} answers it. */
    static JsonObject readiness() {
        return get(READY).check(READINESS_CHECK);
    }

    /** The extension's liveness check, as {@link #LIVE} answers it. */
    static JsonObject liveness() {
        return get(LIVE).check(LIVENESS_CHECK);
    }
}
