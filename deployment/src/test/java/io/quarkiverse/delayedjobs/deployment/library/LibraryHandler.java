package io.quarkiverse.delayedjobs.deployment.library;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

import io.quarkiverse.delayedjobs.Delayed;

/**
 * A handler base class as a library would ship it, without a Jandex index: InheritedHandlersTest adds it as a
 * dependency of the application that Quarkus does not index.
 */
public abstract class LibraryHandler {

    public static final BlockingQueue<String> RAN = new ArrayBlockingQueue<>(10);

    @Delayed("library")
    public void handle(String text) {
        RAN.add(getClass().getSimpleName() + ":" + text);
    }
}
