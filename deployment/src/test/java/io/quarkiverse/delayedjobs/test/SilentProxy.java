package io.quarkiverse.delayedjobs.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;

/**
 * A TCP proxy in front of a {@code redis-server} that can make the connections open through it go silent: Redis still
 * sees them open and so does the client, but nothing from Redis reaches the client any more, as when a network path
 * breaks without either end being told. Connections opened later deliver. Started on first use for the JVM and target
 * (a Sentinel's, say); the test reaches it through the static methods, which work from either class loader of a
 * QuarkusUnitTest (the controls are kept in system properties as JDK types).
 */
public final class SilentProxy {

    /** Followed by the target: the URL of its proxy, and the controls of that proxy by their keys below. */
    private static final String URL = "delayed-jobs.test.silent-proxy.url.";
    private static final String CONTROLS = "delayed-jobs.test.silent-proxy.controls.";
    private static final String SILENCE_SUBSCRIBERS = "delayed-jobs.test.silent-proxy.silence-subscribers";
    private static final String SILENCE_ALL = "delayed-jobs.test.silent-proxy.silence-all";
    private static final String CUT_SILENCED = "delayed-jobs.test.silent-proxy.cut-silenced";
    private static final String SUBSCRIBERS = "delayed-jobs.test.silent-proxy.subscribers";
    private static final String DELAY = "delayed-jobs.test.silent-proxy.delay";
    private static final String COMMAND_DELAY = "delayed-jobs.test.silent-proxy.command-delay";
    private static final String SUBSCRIBE_DELAY = "delayed-jobs.test.silent-proxy.subscribe-delay";
    private static final String DELAY_AFTER = "delayed-jobs.test.silent-proxy.delay-after";

    private final List<Link> links = new CopyOnWriteArrayList<>();
    private final AtomicInteger subscribers = new AtomicInteger();
    private volatile long replyDelayMs;
    private volatile long commandReplyDelayMs;
    private volatile long subscribeDelayMs;
    /** The text of the command whose answer {@link #delayRepliesAfter} holds back, and by how much. */
    private volatile String delayMarker;
    private volatile long delayAfterMarkerMs;

    private SilentProxy() {
    }

    /**
     * The URL of the proxy in front of the Redis server at {@code target}, started on first use; one per target and JVM.
     * The static controls act on the proxy of the target given last.
     */
    public static synchronized String url(String target) {
        String url = System.getProperty(URL + target);
        if (url == null) {
            SilentProxy proxy = new SilentProxy();
            url = "redis://127.0.0.1:" + proxy.start(URI.create(target));
            Map<String, Object> controls = new HashMap<>();
            controls.put(SILENCE_SUBSCRIBERS, (Runnable) () -> proxy.silence(true));
            controls.put(SILENCE_ALL, (Runnable) () -> proxy.silence(false));
            controls.put(CUT_SILENCED, (Runnable) () -> proxy.links.stream()
                    .filter(link -> link.silent).forEach(Link::close));
            controls.put(SUBSCRIBERS, (IntSupplier) proxy.subscribers::get);
            controls.put(DELAY, (LongConsumer) ms -> proxy.replyDelayMs = ms);
            controls.put(COMMAND_DELAY, (LongConsumer) ms -> proxy.commandReplyDelayMs = ms);
            controls.put(SUBSCRIBE_DELAY, (LongConsumer) ms -> proxy.subscribeDelayMs = ms);
            controls.put(DELAY_AFTER, (BiConsumer<String, Long>) (marker, ms) -> {
                proxy.delayAfterMarkerMs = ms;
                proxy.delayMarker = marker;
            });
            System.getProperties().put(CONTROLS + target, controls);
            System.setProperty(URL + target, url);
        }
        System.getProperties().putAll((Map<?, ?>) System.getProperties().get(CONTROLS + target));
        return url;
    }

    /** Silences the pub/sub connections open now. */
    public static void silenceSubscribers() {
        ((Runnable) System.getProperties().get(SILENCE_SUBSCRIBERS)).run();
    }

    /** Silences every connection open now. */
    public static void silenceAll() {
        ((Runnable) System.getProperties().get(SILENCE_ALL)).run();
    }

    /**
     * Closes the silenced connections: their ends are told, so that their calls fail at once rather than after a
     * timeout (a test's application then stops without waiting for them).
     */
    public static void cutSilenced() {
        ((Runnable) System.getProperties().get(CUT_SILENCED)).run();
    }

    /** Holds back what Redis sends by this much from now on, on every connection: a slow network. 0 ends it. */
    public static void delayReplies(long ms) {
        ((LongConsumer) System.getProperties().get(DELAY)).accept(ms);
    }

    /**
     * Holds back what Redis sends by this much from now on, on the connections that did not subscribe: a slow
     * network for calls while the pub/sub connections deliver at once. 0 ends it.
     */
    public static void delayCommandReplies(long ms) {
        ((LongConsumer) System.getProperties().get(COMMAND_DELAY)).accept(ms);
    }

    /**
     * Holds back the SUBSCRIBE commands sent from now on by this much on their way to Redis: a subscription that Redis
     * takes a while after the client sent it. 0 ends it.
     */
    public static void delaySubscribes(long ms) {
        ((LongConsumer) System.getProperties().get(SUBSCRIBE_DELAY)).accept(ms);
    }

    /**
     * Holds back by this much what Redis sends on the connection of the next command that contains {@code marker}, from
     * the first piece read after that command: Redis carries the command out, but its answer comes late, and so do those
     * behind it on that connection. Once; null ends it.
     */
    public static void delayRepliesAfter(String marker, long ms) {
        ((BiConsumer<String, Long>) System.getProperties().get(DELAY_AFTER)).accept(marker, ms);
    }

    /** The connections that subscribed through the proxy so far. */
    public static int subscribers() {
        return ((IntSupplier) System.getProperties().get(SUBSCRIBERS)).getAsInt();
    }

    private int start(URI target) {
        try {
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(() -> {
                while (true) {
                    try {
                        Socket client = server.accept();
                        Socket redis = new Socket(target.getHost(), target.getPort());
                        Link link = new Link(client, redis);
                        links.add(link);
                        pump(link, client, redis, true);
                        pump(link, redis, client, false);
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "silent-proxy-accept");
            acceptor.setDaemon(true);
            acceptor.start();
            return server.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void silence(boolean subscribersOnly) {
        links.stream().filter(link -> link.subscriber || !subscribersOnly).forEach(link -> link.silent = true);
    }

    /**
     * Copies one direction of a link. A command with SUBSCRIBE marks the link as pub/sub (a client sends it whole, in
     * one write); what Redis sends on a silenced link is dropped. A delay holds each piece back by that much from the
     * moment it was read, as a network's latency does: pieces read meanwhile are not held back behind it any longer
     * (one thread reads, another writes each piece once its time has come, in order).
     */
    private void pump(Link link, Socket from, Socket to, boolean fromClient) {
        BlockingQueue<Piece> pieces = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try {
                InputStream in = from.getInputStream();
                for (int n; (n = in.read(buffer)) >= 0;) {
                    boolean subscribe = false;
                    String text = fromClient ? new String(buffer, 0, n, StandardCharsets.ISO_8859_1) : "";
                    if (fromClient && !link.subscriber && text.toUpperCase(Locale.ROOT).contains("SUBSCRIBE")) {
                        link.subscriber = true;
                        subscribers.incrementAndGet();
                        subscribe = true;
                    }
                    String marker = delayMarker;
                    if (fromClient && marker != null && text.contains(marker)) {
                        delayMarker = null;
                        link.holdNextReplyMs = delayAfterMarkerMs;
                    }
                    long delayMs = fromClient ? (subscribe ? subscribeDelayMs : 0)
                            : link.subscriber ? replyDelayMs : replyDelayMs + commandReplyDelayMs;
                    if (!fromClient && link.holdNextReplyMs > 0) {
                        delayMs += link.holdNextReplyMs;
                        link.holdNextReplyMs = 0;
                    }
                    pieces.add(new Piece(Arrays.copyOf(buffer, n), System.nanoTime() + delayMs * 1_000_000));
                }
            } catch (IOException e) {
                // the other direction, or either end, closed the link
            } finally {
                pieces.add(Piece.END);
            }
        }, "silent-proxy-read");
        Thread writer = new Thread(() -> {
            try {
                OutputStream out = to.getOutputStream();
                for (Piece piece; (piece = pieces.take()) != Piece.END;) {
                    long waitNanos = piece.dueNanos() - System.nanoTime();
                    if (waitNanos > 0) {
                        Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000)); // the network's latency
                    }
                    if (fromClient || !link.silent) {
                        out.write(piece.bytes());
                    }
                }
            } catch (IOException e) {
                // the other end closed
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                link.close();
                links.remove(link);
            }
        }, "silent-proxy-write");
        for (Thread thread : List.of(reader, writer)) {
            thread.setDaemon(true);
            thread.start();
        }
    }

    /** Bytes read from one end, to be written to the other at {@code dueNanos} ({@link System#nanoTime()}). */
    private record Piece(byte[] bytes, long dueNanos) {
        static final Piece END = new Piece(new byte[0], 0);
    }

    private static final class Link {
        final Socket client;
        final Socket redis;
        volatile boolean subscriber;
        volatile boolean silent;
        /** How long to hold back the next piece Redis sends (see {@link SilentProxy#delayRepliesAfter}). */
        volatile long holdNextReplyMs;

        Link(Socket client, Socket redis) {
            this.client = client;
            this.redis = redis;
        }

        void close() {
            for (Socket socket : List.of(client, redis)) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // the other end goes all the same
                }
            }
        }
    }
}
