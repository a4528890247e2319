package io.quarkiverse.delayedjobs.benchmark.peers;

/** The same ~100-byte JSON payload the benchmark application sends, for the peers. */
final class Payloads {

    private Payloads() {
    }

    static String json(long seq, long due) {
        return String.format(
                "{\"seq\":%d,\"customer\":\"customer-%07d\",\"kind\":\"help-email\",\"due\":%d,\"note\":\"lorem ipsum dolor sit\"}",
                seq, seq % 10_000_000, due);
    }
}
