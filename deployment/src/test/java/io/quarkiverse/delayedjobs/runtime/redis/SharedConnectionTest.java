package io.quarkiverse.delayedjobs.runtime.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.quarkiverse.delayedjobs.test.RedisTestServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import io.vertx.redis.client.Response;

/**
 * The connection every call of the engine shares, against a real {@code redis-server}: a call that timed out while
 * its connection was still opening is not sent once it opens. Its caller was told it failed, and may have called again
 * (a worker's claim that Redis ran then would lease jobs no worker holds, until the lease ran out).
 */
class SharedConnectionTest {

    static final String URL = RedisTestServer.sharedUrl("shared-connection");

    final Vertx vertx = Vertx.vertx();

    @AfterEach
    void closeVertx() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aCallThatTimedOutWhileItsConnectionOpenedIsNotSent() throws Exception {
        SharedConnection connection = new SharedConnection(() -> new RedisOptions().setConnectionString(URL), vertx,
                1000, () -> {
                });
        assertEquals("PONG", answer(connection.send("k", Request.cmd(Command.PING))).toString());

        // Redis stops: the kernel still takes connections, and nothing answers, a new connection's handshake included.
        RedisTestServer.freeze(URL);
        try {
            // The open connection's call times out, and that connection goes.
            assertTimedOut(connection.send("k", Request.cmd(Command.SET).arg("on-the-old-connection").arg("1")));
            // The next call waits for a new connection, which cannot open before Redis goes on.
            assertTimedOut(connection.send("k", Request.cmd(Command.SET).arg("while-opening").arg("1")));
        } finally {
            RedisTestServer.thaw(URL);
        }
        // A call made now goes out on the new connection once it opens, after the one that timed out would have.
        assertEquals("OK", answer(connection.send("k", Request.cmd(Command.SET).arg("after").arg("1"))).toString());
        assertNull(answer(connection.send("k", Request.cmd(Command.GET).arg("while-opening"))));
        connection.closeNow();
    }

    /**
     * A call that fails because another one on its connection timed out says so: it did not wait the whole timeout
     * itself (a pressure trial saw "did not answer within 10000 ms" after 5 s).
     */
    @Test
    void aCallFailedByAnotherCallsTimeoutSaysSo() throws Exception {
        SharedConnection connection = new SharedConnection(() -> new RedisOptions().setConnectionString(URL), vertx,
                1000, () -> {
                });
        assertEquals("PONG", answer(connection.send("k", Request.cmd(Command.PING))).toString());
        RedisTestServer.freeze(URL);
        try {
            Future<Response> first = connection.send("k", Request.cmd(Command.PING));
            Future<Response> second = vertx.timer(300).compose(t -> connection.send("k", Request.cmd(Command.PING)));
            assertTimedOut(first);
            ExecutionException e = assertThrows(ExecutionException.class, () -> answer(second));
            assertEquals("Redis did not answer another call within 1000 ms on the connection this call was on, which"
                    + " was closed", e.getCause().getMessage());
            assertTrue(e.getCause() instanceof TimeoutException, "cause: " + e.getCause());
        } finally {
            RedisTestServer.thaw(URL);
        }
        connection.closeNow();
    }

    private static Response answer(Future<Response> call) throws Exception {
        return call.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static void assertTimedOut(Future<Response> call) throws InterruptedException {
        try {
            answer(call);
        } catch (ExecutionException e) {
            assertTrue(e.getCause() instanceof TimeoutException, "cause: " + e.getCause());
            return;
        } catch (Exception e) {
            throw new AssertionError("The call did not fail by its own timeout", e);
        }
        throw new AssertionError("The call was answered");
    }
}
