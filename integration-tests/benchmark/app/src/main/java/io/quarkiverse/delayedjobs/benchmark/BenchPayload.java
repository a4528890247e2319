package io.quarkiverse.delayedjobs.benchmark;

/**
 * The payload of every benchmark job: about 100 bytes of JSON, the same shape for every system.
 *
 * @param seq the job's sequence number in its workload
 * @param customer a made-up customer id
 * @param kind a made-up job kind
 * @param due the due time the producer asked for, in ms since the epoch
 * @param note padding that brings the JSON to about 100 bytes
 */
public record BenchPayload(long seq, String customer, String kind, long due, String note) {

    public static BenchPayload of(long seq, long due) {
        // Not String.format: the producer thread builds 100,000 of these and must not be the bottleneck.
        String number = Long.toString(seq % 10_000_000);
        return new BenchPayload(seq, "customer-" + "0000000".substring(number.length()) + number, "help-email", due,
                "lorem ipsum dolor sit");
    }
}
