package io.quarkiverse.delayedjobs.deployment.devservices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The Dev Service refuses a {@code redis-server} older than 7.0 with a message that says so: the scripts need 7.0
 * ({@code SET ... NX GET}), and a cluster of one node needs {@code CLUSTER ADDSLOTSRANGE}, so a Redis 6 (Debian 11,
 * Ubuntu 22.04) failed later and less clearly. Found by a review helper.
 */
class LocalRedisServerVersionTest {

    @Test
    void readsTheVersionOfAnInfoServerAnswer() {
        assertEquals("6.0.16", LocalRedisServer.versionOf("# Server\r\nredis_version:6.0.16\r\nredis_git_sha1:00000000\r\n"));
        assertNull(LocalRedisServer.versionOf("# Server\r\nredis_mode:standalone\r\n"));
        assertNull(LocalRedisServer.versionOf(null));
    }

    @Test
    void takesSevenAndLaterOnly() {
        assertFalse(LocalRedisServer.atLeast7("6.2.14"));
        assertTrue(LocalRedisServer.atLeast7("7.0.15"));
        assertTrue(LocalRedisServer.atLeast7("8.2.1"));
        assertTrue(LocalRedisServer.atLeast7(null), "an unknown version is let through");
    }
}
