package io.quarkiverse.delayedjobs.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.function.Consumer;

import io.quarkus.runtime.configuration.ConfigurationException;

/**
 * For {@code QuarkusUnitTest.assertException}: the application refused to start with a {@link ConfigurationException}
 * of exactly this message as the root cause, which is what makes Quarkus print the message alone. (The copy
 * {@code QuarkusUnitTest} hands over keeps the message and cause only; {@code ConfigCheckTest} checks the keys.)
 */
final class StartupRefusal {

    private StartupRefusal() {
    }

    static Consumer<Throwable> refusedWith(String message) {
        return e -> {
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            assertEquals(message, assertInstanceOf(ConfigurationException.class, root, "the root cause").getMessage());
        };
    }
}
