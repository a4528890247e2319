package io.quarkiverse.delayedjobs.runtime.worker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;

/**
 * A delivery starts only on a lease that is still its own: one whose lease ended, or was found lost, before its
 * handler's thread took it up lapses instead, and is handed back by the worker.
 */
class DeliveryTest {

    static Delivery delivery(long leaseEndNanos) {
        return new Delivery("q", 0, new Claimed("id", "1.1", 1, 0, new byte[0], null), leaseEndNanos);
    }

    @Test
    void aDeliveryWithItsLeaseStarts() {
        Delivery d = delivery(System.nanoTime() + 60_000_000_000L);
        assertTrue(d.start());
        assertFalse(d.lapsed());
        assertFalse(d.handBack(), "started: no longer handed back");
    }

    @Test
    void aDeliveryWhoseLeaseEndedLapses() {
        Delivery d = delivery(System.nanoTime() - 1);
        assertFalse(d.start());
        assertTrue(d.lapsed());
        assertTrue(d.leaseLost());
        assertFalse(d.handBack(), "lapsed: the worker hands it back once, from its outcome");
    }

    @Test
    void aDeliveryWhoseLeaseWasFoundLostLapses() {
        // A renewal found the claim gone, before the worker could drop the delivery.
        Delivery d = delivery(System.nanoTime() + 60_000_000_000L);
        d.loseLease();
        assertFalse(d.start());
        assertTrue(d.lapsed());
    }

    @Test
    void aDeliveryHandedBackFirstNeitherStartsNorLapses() {
        Delivery d = delivery(System.nanoTime() - 1);
        assertTrue(d.handBack());
        assertFalse(d.start());
        assertFalse(d.lapsed());
    }
}
