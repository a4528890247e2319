package io.quarkiverse.delayedjobs.test.otherpackage;

import java.util.concurrent.CountDownLatch;

import io.quarkiverse.delayedjobs.Delayed;

/** A handler that a subclass in another package inherits: its method is package-private, so it is not overridden. */
public abstract class PackagePrivateHandler {

    public static final CountDownLatch ran = new CountDownLatch(1);

    @Delayed("package-private")
    void handle() {
        ran.countDown();
    }
}
