package io.quarkiverse.delayedjobs.demo;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * The latest runs of the demo handler in this instance, newest last; bounded so that a long demo does not grow.
 */
@ApplicationScoped
public class Firings {

    private static final int KEPT = 200;

    private final Deque<Firing> firings = new ArrayDeque<>();

    synchronized void record(Firing firing) {
        if (firings.size() == KEPT) {
            firings.removeFirst();
        }
        firings.addLast(firing);
    }

    public synchronized List<Firing> all() {
        return new ArrayList<>(firings);
    }
}
