package io.quarkiverse.delayedjobs.demo;

/**
 * The payload of a demo job.
 *
 * @param text what the handler logs
 * @param failures how many deliveries fail before one succeeds, to watch retries and dead letters
 */
public record Reminder(String text, int failures) {
}
