package io.quarkiverse.delayedjobs.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.vertx.core.json.JsonObject;

/** HTTP for the {@code QuarkusDevModeTest}s: a port for the application, and its readiness. */
final class DevModeHttp {

    private DevModeHttp() {
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The status of the readiness endpoint; the request makes dev mode reload a changed application first. */
    static String readiness(int port) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> response = client
                .send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/q/health/ready"))
                        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 || response.statusCode() == 503
                ? new JsonObject(response.body()).getString("status")
                : response.statusCode() + " " + response.body();
    }
}
