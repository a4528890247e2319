package io.quarkiverse.delayedjobs.runtime.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import org.jboss.logging.Logger;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

/** The first lost lease is a WARN, those of the minute after it DEBUG, and the first after that minute counts them. */
class LostLeasesTest {

    private static final String CATEGORY = LostLeasesTest.class.getName();

    @Test
    void oneWarningAMinuteThatCountsTheOthers() {
        List<String> logged = new CopyOnWriteArrayList<>();
        java.util.logging.Logger category = java.util.logging.Logger.getLogger(CATEGORY);
        category.setLevel(Level.ALL);
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                String level = record.getLevel().intValue() >= Level.WARNING.intValue() ? "WARN" : "DEBUG";
                logged.add(
                        level + " " + (record instanceof ExtLogRecord ext ? ext.getFormattedMessage() : record.getMessage()));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        category.addHandler(handler);
        try {
            AtomicLong now = new AtomicLong(0);
            LostLeases lost = new LostLeases(Logger.getLogger(CATEGORY), now::get);
            lost.lost("a");
            now.set(TimeUnit.SECONDS.toNanos(30));
            lost.lost("b");
            lost.lost("c");
            now.set(TimeUnit.SECONDS.toNanos(61));
            lost.lost("d");
            now.set(TimeUnit.SECONDS.toNanos(122));
            lost.lost("e");
            assertEquals(List.of("WARN a (further lost leases within a minute are logged at DEBUG)", "DEBUG b", "DEBUG c",
                    "WARN d (and 2 more lost leases since the last such warning, logged at DEBUG)",
                    "WARN e (further lost leases within a minute are logged at DEBUG)"), logged);
        } finally {
            category.removeHandler(handler);
        }
    }
}
