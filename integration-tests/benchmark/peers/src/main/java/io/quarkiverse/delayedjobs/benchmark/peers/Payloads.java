package io.quarkiverse.delayedjobs.benchmark.peers;

/** The same ~100-byte JSON payload the benchmark application sends, for the peers. */
final class Payloads {

    private Payloads() {
    }

    static String json(long seq, long due) {
        // Not String.format: the producer thread builds 100,000 of these and must not be the bottleneck.
        String number = Long.toString(seq % 10_000_000);
        return "{\"seq\":" + seq + ",\"customer\":\"customer-" + "0000000".substring(number.length()) + number
                + "\",\"kind\":\"help-email\",\"due\":" + due + ",\"note\":\"lorem ipsum dolor sit\"}";
    }
}
