package io.quarkiverse.delayedjobs.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.jboss.logmanager.ExtLogRecord;

/** The messages logged in a category (and those below it) at a level or above, from {@link #of} until closed. */
final class LoggedMessages extends Handler implements AutoCloseable {

    private final Logger logger;
    private final Level least;
    private final List<String> messages = new CopyOnWriteArrayList<>();
    private final List<String> withTrace = new CopyOnWriteArrayList<>();

    private LoggedMessages(String category, Level least) {
        this.logger = Logger.getLogger(category);
        this.least = least;
    }

    static LoggedMessages of(String category, Level least) {
        LoggedMessages logged = new LoggedMessages(category, least);
        logged.logger.addHandler(logged);
        return logged;
    }

    /** The messages so far, formatted. */
    List<String> messages() {
        return messages;
    }

    /** Those of the messages so far logged with a throwable, whose stack trace the log prints. */
    List<String> withTrace() {
        return withTrace;
    }

    @Override
    public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= least.intValue()) {
            String message = record instanceof ExtLogRecord ext ? ext.getFormattedMessage() : record.getMessage();
            messages.add(message);
            if (record.getThrown() != null) {
                withTrace.add(message);
            }
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
