package io.quarkiverse.delayedjobs.demo;

import java.time.Duration;
import java.time.Instant;

import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.JobContext;

/**
 * The handler of the demo queue: logs each run with its lateness, the time between the job's due time and the start
 * of the handler.
 */
public class DemoHandler {

    public static final String QUEUE = "demo";

    private static final Logger LOG = Logger.getLogger(DemoHandler.class);

    private final Firings firings;

    DemoHandler(Firings firings) {
        this.firings = firings;
    }

    @Delayed(QUEUE)
    void fire(Reminder reminder, JobContext job) {
        // Due times are kept by the Redis clock; Redis runs on this machine, so the local clock is the same clock.
        Instant startedAt = Instant.now();
        long latenessMs = Duration.between(job.dueAt(), startedAt).toMillis();
        String text = reminder == null ? null : reminder.text();
        boolean fail = reminder != null && job.attempt() <= reminder.failures();
        // dueAt() is the job's original due time, so the lateness of a retry includes its backoff.
        LOG.infof("Fired %s (attempt %d) due at %s, lateness %d ms%s: %s%s", job.id(), job.attempt(), job.dueAt(),
                latenessMs, job.attempt() > 1 ? " (with retry backoff)" : "", text,
                fail ? " - failing on purpose" : "");
        firings.record(new Firing(job.id(), job.attempt(), job.dueAt(), startedAt, latenessMs, text, !fail));
        if (fail) {
            throw new IllegalStateException("Failing attempt " + job.attempt() + " of " + reminder.failures()
                    + " on purpose");
        }
    }
}
