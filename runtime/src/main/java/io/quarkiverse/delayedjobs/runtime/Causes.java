package io.quarkiverse.delayedjobs.runtime;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/** Looks through a failure's chain of causes, which may loop: {@code initCause} lets two exceptions cause each other. */
public final class Causes {

    private Causes() {
    }

    /** The first throwable of {@code type} in the chain that starts with {@code failure} itself, or null. */
    public static <T extends Throwable> T find(Throwable failure, Class<T> type) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /** What a failure says: its message, or its class and nothing else when it has none. */
    public static String message(Throwable failure) {
        return failure.getMessage() == null ? failure.toString() : failure.getMessage();
    }
}
