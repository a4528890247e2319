package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.runtime.devui.DelayedJobsJsonRpcService;
import io.quarkus.arc.Arc;
import io.quarkus.test.QuarkusUnitTest;

/**
 * Outside dev mode the Dev UI's JSON-RPC service is no bean, although its class is on this module's test class path
 * (in an application it is not even that: it is a conditional dev dependency).
 */
public class DevUiOnlyInDevModeTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "devui-only-in-dev-mode");

    @Test
    void theJsonRpcServiceIsNoBeanInTestMode() {
        assertFalse(Arc.container().instance(DelayedJobsJsonRpcService.class).isAvailable());
    }
}
