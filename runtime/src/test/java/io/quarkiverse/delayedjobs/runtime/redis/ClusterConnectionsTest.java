package io.quarkiverse.delayedjobs.runtime.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** How the address of a node that {@code CLUSTER SLOTS} names is made from a configured one. */
class ClusterConnectionsTest {

    @Test
    void theNodesHostAndPortTakeTheTemplatesPlace() {
        assertEquals("redis://10.0.0.2:7001", ClusterConnections.endpoint("redis://127.0.0.1:7000", "10.0.0.2", 7001));
        assertEquals("rediss://10.0.0.2:7001", ClusterConnections.endpoint("rediss://node-a:7000", "10.0.0.2", 7001));
    }

    @Test
    void credentialsPathAndQueryStay() {
        assertEquals("redis://app:s3cret@10.0.0.2:7001",
                ClusterConnections.endpoint("redis://app:s3cret@127.0.0.1:7000", "10.0.0.2", 7001));
        assertEquals("redis://10.0.0.2:7001?user=app&password=s3cret",
                ClusterConnections.endpoint("redis://127.0.0.1:7000?user=app&password=s3cret", "10.0.0.2", 7001));
        assertEquals("redis://10.0.0.2:7001/0", ClusterConnections.endpoint("redis://127.0.0.1:7000/0", "10.0.0.2", 7001));
    }

    @Test
    void anUnknownHostIsTheTemplatesOne() {
        assertEquals("redis://redis_node1:7001", ClusterConnections.endpoint("redis://redis_node1:7000", "?", 7001));
        assertEquals("redis://a@redis_node1:7001", ClusterConnections.endpoint("redis://a@redis_node1:7000", "", 7001));
        assertEquals("redis://[::1]:7001", ClusterConnections.endpoint("redis://[::1]:7000", null, 7001));
    }

    @Test
    void anIpv6HostGetsBrackets() {
        assertEquals("redis://[fe80::1]:7001", ClusterConnections.endpoint("redis://127.0.0.1:7000", "fe80::1", 7001));
    }

    @Test
    void theSlotIsTheCrc16OfTheHashTag() {
        // Values as Redis's CLUSTER KEYSLOT gives them.
        assertEquals(12182, ClusterConnections.slotOf("foo"));
        assertEquals(ClusterConnections.slotOf("user"), ClusterConnections.slotOf("{user}:profile"));
        assertEquals(675, ClusterConnections.slotOf("dj:{lost}:shards"));
    }
}
