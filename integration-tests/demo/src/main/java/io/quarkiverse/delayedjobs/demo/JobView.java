package io.quarkiverse.delayedjobs.demo;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonRawValue;

import io.quarkiverse.delayedjobs.JobInfo;

/**
 * A job as the REST API shows it: its payload as JSON rather than as a string of JSON.
 */
public record JobView(String queue, String id, JobInfo.State state, Instant dueAt, int attempts, String lastError,
        @JsonRawValue String payload, String cron) {

    static JobView of(JobInfo job) {
        return new JobView(job.queue(), job.id(), job.state(), job.dueAt(), job.attempts(), job.lastError(),
                job.payload(), job.cron());
    }
}
