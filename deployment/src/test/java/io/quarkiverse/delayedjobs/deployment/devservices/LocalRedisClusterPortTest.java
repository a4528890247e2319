package io.quarkiverse.delayedjobs.deployment.devservices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

/**
 * A cluster node binds its port and the bus port 10000 above it, so {@code redis-server} refuses a port above 55535;
 * the ports Linux hands out reach 60999. The Dev Service of a cluster client skips such ports, and ports whose bus
 * port another process holds, rather than fail to start about one time in five.
 */
public class LocalRedisClusterPortTest {

    @Test
    void portsWhoseBusPortCannotBeBoundAreSkipped() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int busTaken = taken.getLocalPort();
            // A port whose bus port would be above 65535, one whose bus port is held, then one that works.
            int good = IntStream.range(20_000, 30_000).filter(p -> p + LocalRedisServer.CLUSTER_BUS_OFFSET != busTaken)
                    .filter(LocalRedisClusterPortTest::free).findFirst().orElseThrow();
            Iterator<Integer> draws = List.of(57_001, busTaken - LocalRedisServer.CLUSTER_BUS_OFFSET, good).iterator();
            assertEquals(good, LocalRedisServer.freeClusterPort(draws::next));
        }
    }

    @Test
    void noUsablePortGivesAClearError() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> LocalRedisServer.freeClusterPort(() -> 60_000));
        assertTrue(e.getMessage().contains("at most 55535"), e.getMessage());
    }

    @Test
    void aClusterOfOneNodeStartsOnAPortItCanUse() {
        LocalRedisServer server = new LocalRedisServer(
                RedisServerDevServicesProcessor.findOnPath("redis-server").orElseThrow(), true);
        try {
            server.start();
            assertTrue(server.port() <= 55535, "port " + server.port());
        } finally {
            server.close();
        }
    }

    private static boolean free(int port) {
        try (ServerSocket probe = new ServerSocket(port + LocalRedisServer.CLUSTER_BUS_OFFSET, 50,
                InetAddress.getLoopbackAddress())) {
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
