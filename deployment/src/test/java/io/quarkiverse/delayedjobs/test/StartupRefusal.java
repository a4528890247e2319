package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.function.Consumer;

/**
 * For {@code QuarkusUnitTest.assertException}: the application refused to start with an
 * {@link IllegalArgumentException} of exactly this message, anywhere in the chain of causes.
 */
final class StartupRefusal {

    private StartupRefusal() {
    }

    static Consumer<Throwable> refusedWith(String message) {
        return e -> {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof IllegalArgumentException && t.getMessage().equals(message)) {
                    return;
                }
            }
            fail("unexpected failure", e);
        };
    }
}
