package io.quarkiverse.delayedjobs.demo;

import java.time.Instant;

/**
 * One run of the demo handler, as seen by this instance.
 *
 * @param id the job id
 * @param attempt which delivery it was, from 1
 * @param dueAt when the job was due
 * @param startedAt when the handler started
 * @param latenessMs {@code startedAt - dueAt} in milliseconds
 * @param text the text of the payload
 * @param succeeded false when the handler threw to demonstrate a retry
 */
public record Firing(String id, int attempt, Instant dueAt, Instant startedAt, long latenessMs, String text,
        boolean succeeded) {
}
