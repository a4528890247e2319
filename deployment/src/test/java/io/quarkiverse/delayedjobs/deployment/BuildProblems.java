package io.quarkiverse.delayedjobs.deployment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Reads the {@code @Delayed} problems out of a failed build. ArC throws one {@code DeploymentException}: with a
 * single problem it is the cause, with several they are its suppressed exceptions.
 */
final class BuildProblems {

    private static final String MARK = ": @Delayed declared on ";

    private BuildProblems() {
    }

    /** The message the processor gives a broken rule. */
    static String problem(String rule, Class<?> bean, String method) {
        return rule + MARK + bean.getName() + "#" + method + "()";
    }

    /** Asserts that the build reported exactly these {@code @Delayed} problems, in any order. */
    static void assertReported(Throwable failure, String... expected) {
        List<String> reported = reported(failure);
        List<String> wanted = new ArrayList<>(List.of(expected));
        Collections.sort(reported);
        Collections.sort(wanted);
        assertEquals(wanted, reported, "@Delayed problems reported by the failed build " + failure);
    }

    private static List<String> reported(Throwable failure) {
        List<String> messages = new ArrayList<>();
        collect(failure, messages, Collections.newSetFromMap(new IdentityHashMap<>()));
        return messages;
    }

    private static void collect(Throwable t, List<String> messages, Set<Throwable> seen) {
        if (t == null || !seen.add(t)) {
            return;
        }
        if (t instanceof IllegalStateException && t.getMessage() != null && t.getMessage().contains(MARK)) {
            messages.add(t.getMessage());
        }
        for (Throwable suppressed : t.getSuppressed()) {
            collect(suppressed, messages, seen);
        }
        collect(t.getCause(), messages, seen);
    }
}
