package io.quarkiverse.delayedjobs.benchmark.peers;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.quarkiverse.delayedjobs.benchmark.measure.Counters;

/**
 * A minimal RESP2 connection, independent of every client library under test: the meters and the raw ceiling use it.
 * Replies are {@code String} (simple and bulk strings), {@code Long}, {@code List<Object>} or {@code null}; an error
 * reply throws {@link RespError}.
 */
public final class Resp implements AutoCloseable {

    /** An error reply of the server. */
    public static final class RespError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RespError(String message) {
            super(message);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public Resp(int port) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(120_000);
            in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
            out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot connect to Redis on 127.0.0.1:" + port, e);
        }
    }

    /** The local port of this connection, as Redis and MONITOR name the client. */
    public int localPort() {
        return socket.getLocalPort();
    }

    public Object call(Object... args) {
        write(args);
        flush();
        return read();
    }

    /** The server's counters and this process's CPU time, now. */
    public Counters counters() {
        Object[] info = new Object[Counters.INFO_SECTIONS.length + 1];
        info[0] = "INFO";
        System.arraycopy(Counters.INFO_SECTIONS, 0, info, 1, Counters.INFO_SECTIONS.length);
        return Counters.parse((String) call(info));
    }

    /** Deletes every key matching the pattern, in bounded SCAN rounds. */
    @SuppressWarnings("unchecked")
    public long deleteKeys(String pattern) {
        long deleted = 0;
        String cursor = "0";
        for (int round = 0; round < 1_000_000; round++) {
            List<Object> page = (List<Object>) call("SCAN", cursor, "MATCH", pattern, "COUNT", 1000);
            cursor = (String) page.get(0);
            List<Object> keys = (List<Object>) page.get(1);
            if (!keys.isEmpty()) {
                Object[] unlink = new Object[keys.size() + 1];
                unlink[0] = "UNLINK";
                for (int i = 0; i < keys.size(); i++) {
                    unlink[i + 1] = keys.get(i);
                }
                deleted += (Long) call(unlink);
            }
            if ("0".equals(cursor)) {
                return deleted;
            }
        }
        throw new IllegalStateException("SCAN did not finish over " + pattern);
    }

    /** Writes a command without waiting for its reply: pipelining. */
    public void write(Object... args) {
        try {
            out.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (Object arg : args) {
                byte[] bytes = String.valueOf(arg).getBytes(StandardCharsets.UTF_8);
                out.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(bytes);
                out.write('\r');
                out.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sets how long a read may wait, in ms. */
    public void readTimeout(int millis) {
        try {
            socket.setSoTimeout(Math.max(1, millis));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Object read() {
        try {
            int type = in.read();
            String line = line();
            switch (type) {
                case '+':
                    return line;
                case '-':
                    throw new RespError(line);
                case ':':
                    return Long.parseLong(line);
                case '$': {
                    int length = Integer.parseInt(line);
                    if (length < 0) {
                        return null;
                    }
                    byte[] bytes = in.readNBytes(length + 2);
                    return new String(bytes, 0, length, StandardCharsets.UTF_8);
                }
                case '*': {
                    int count = Integer.parseInt(line);
                    if (count < 0) {
                        return null;
                    }
                    List<Object> items = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        items.add(read());
                    }
                    return items;
                }
                case -1:
                    throw new IOException("Redis closed the connection");
                default:
                    throw new IOException("Unexpected RESP type " + (char) type);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(64);
        for (int i = 0; i < 1 << 20; i++) {
            int b = in.read();
            if (b == -1) {
                throw new IOException("Redis closed the connection");
            }
            if (b == '\r') {
                in.read();
                return buffer.toString(StandardCharsets.UTF_8);
            }
            buffer.write(b);
        }
        throw new IOException("RESP line longer than 1 MiB");
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing left to do with a socket that does not close
        }
    }
}
