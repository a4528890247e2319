package io.quarkiverse.delayedjobs.runtime.devui;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

import jakarta.inject.Singleton;

import io.quarkiverse.delayedjobs.JobInfo;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.HandlerDefinition;
import io.quarkiverse.delayedjobs.runtime.HandlerRegistry;
import io.quarkiverse.delayedjobs.runtime.JobArguments;
import io.quarkiverse.delayedjobs.runtime.config.DelayedJobsRuntimeConfig;
import io.quarkiverse.delayedjobs.runtime.cron.ConfigExpressions;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.runtime.annotations.JsonRpcDescription;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Future;

/**
 * The JSON-RPC methods behind the Dev UI page of the extension. On the application's queues each one goes through the
 * public {@link ReactiveDelayedScheduler}, so the page sees what an application sees; the other queues found in Redis
 * are read and acted on through the {@link JobStore} with their recorded shard counts ({@link #asStored}). None
 * blocks the event loop the Dev UI calls it on. Results are plain records of strings and numbers; a failure (a bad argument,
 * Redis down) fails
 * the call with the scheduler's message, which the page shows.
 */
@Singleton
public class DelayedJobsJsonRpcService {

    private final ReactiveDelayedScheduler scheduler;
    private final HandlerRegistry handlers;
    private final DelayedJobsRuntimeConfig config;
    private final JobStore store;

    public DelayedJobsJsonRpcService(ReactiveDelayedScheduler scheduler, HandlerRegistry handlers,
            DelayedJobsRuntimeConfig config, JobStore store) {
        this.scheduler = scheduler;
        this.handlers = handlers;
        this.config = config;
        this.store = store;
    }

    /**
     * What the page lists.
     *
     * @param workers whether this instance runs workers ({@code quarkus.delayed-jobs.enabled})
     * @param keyPrefix the prefix of the Redis keys
     * @param queues the queues with a handler here or settings under {@code quarkus.delayed-jobs.queues}, by name
     * @param otherQueues the queues found in Redis under the key prefix that are not among {@code queues}: renamed or
     *        removed ones, whose jobs no handler of this application runs, or those of another application
     * @param otherQueuesError why Redis could not be searched for other queues, or null
     */
    public record Overview(boolean workers, String keyPrefix, List<QueueView> queues, List<QueueView> otherQueues,
            String otherQueuesError) {
    }

    /**
     * A queue known to this application, with its figures.
     *
     * @param name the queue
     * @param handler the {@code @Delayed} method of this application that runs its jobs ({@code Class#method()}), or
     *        null when it has none here
     * @param cron the schedule of a recurring handler, or null
     * @param timeZone the time zone of that schedule, or null for UTC
     * @param nextOccurrenceAt the occurrence the job of that schedule is armed at (ISO-8601), or null when none is
     *        armed (a schedule that has ended, one no instance with workers registered) or it was not read
     * @param scheduleError why the armed occurrence could not be read, or null
     * @param pending jobs waiting, or null when the figures could not be read
     * @param running jobs claimed by a worker, or null
     * @param dead dead letters, or null
     * @param nextDueAt the earliest due time of a pending job (ISO-8601), or null
     * @param lagMillis how long the oldest due pending job has waited, or null
     * @param error why the figures could not be read, or null
     */
    public record QueueView(String name, String handler, String cron, String timeZone, String nextOccurrenceAt,
            String scheduleError, Long pending, Long running, Long dead, String nextDueAt, Long lagMillis, String error) {
    }

    /**
     * A stored job, as {@link JobInfo} with its times as ISO-8601 text.
     */
    public record JobView(String queue, String id, String state, String dueAt, int attempts, String lastError,
            String payload, String cron) {

        static JobView of(JobInfo job) {
            return new JobView(job.queue(), job.id(), job.state().name(), job.dueAt().toString(), job.attempts(),
                    job.lastError(), job.payload(), job.cron());
        }
    }

    @JsonRpcDescription("Lists the queues of this application (those with a @Delayed handler and those configured under"
            + " quarkus.delayed-jobs.queues) with their pending, running and dead jobs, next due time and lag, then the"
            + " other queues found in Redis under the key prefix")
    public Uni<Overview> queues() {
        Map<String, HandlerDefinition> known = new TreeMap<>();
        config.queues().keySet().forEach(name -> known.put(name, null));
        handlers.handlers().forEach(handler -> known.put(handler.queue(), handler));
        Uni<List<QueueView>> ours = views(
                known.entrySet().stream().map(e -> view(e.getKey(), e.getValue(), scheduler.stats(e.getKey()))).toList());
        Uni<Reading<List<QueueView>>> others = read(Uni.createFrom().completionStage(
                () -> store.storedQueues().toCompletionStage()))
                .flatMap(stored -> stored.value() == null ? Uni.createFrom().item(new Reading<>(List.of(), stored.error()))
                        : views(stored.value().stream().filter(name -> !known.containsKey(name))
                                .map(name -> view(name, null, asStored(name, store::stats))).toList())
                                .map(views -> new Reading<>(views, null)));
        return Uni.combine().all().unis(ours, others).with((queues, other) -> new Overview(config.enabled(),
                config.keyPrefix(), queues, other.value(), other.error()));
    }

    private static Uni<List<QueueView>> views(List<Uni<QueueView>> views) {
        return views.isEmpty() ? Uni.createFrom().item(List.of()) : Uni.join().all(views).andFailFast();
    }

    /**
     * One queue whose figures cannot be read (a bad configured name, Redis down) must not hide the others. Its
     * schedule and its figures are read side by side, so that a Redis that does not answer holds the page for one
     * {@code redis-timeout}, not two.
     */
    private Uni<QueueView> view(String queue, HandlerDefinition handler, Uni<QueueStats> stats) {
        String method = handler == null ? null : handler.method();
        String cron = handler == null ? null : resolved(handler.cron());
        String zone = handler == null ? null : zone(resolved(handler.timeZone()));
        Uni<Reading<String>> armed = cron == null ? Uni.createFrom().item(new Reading<>(null, null))
                : read(armedOccurrence(queue));
        return Uni.combine().all().unis(armed, read(stats)).with((next, figures) -> {
            QueueStats s = figures.value();
            return s == null
                    ? new QueueView(queue, method, cron, zone, next.value(), next.error(), null, null, null, null,
                            null, figures.error())
                    : new QueueView(queue, method, cron, zone, next.value(), next.error(), s.pending(), s.running(),
                            s.dead(), s.nextDueAt().map(Instant::toString).orElse(null), s.lag().toMillis(), null);
        });
    }

    /** What a reading gave, or why it failed. */
    private record Reading<T>(T value, String error) {
    }

    private static <T> Uni<Reading<T>> read(Uni<T> reading) {
        return reading.map(value -> new Reading<>(value, (String) null))
                .onFailure().recoverWithItem(e -> new Reading<>(null, String.valueOf(e.getMessage())));
    }

    /**
     * The occurrence the job of a static schedule (its id is the queue's name) is armed at, the one running while it
     * runs, or null: the expression alone does not say whether a job runs it. The last occurrence of a schedule that
     * ended may stay as a dead letter, which runs nothing.
     */
    private Uni<String> armedOccurrence(String queue) {
        return scheduler.find(queue, queue)
                .map(job -> job.filter(j -> j.cron() != null && j.state() != JobInfo.State.DEAD)
                        .map(j -> j.dueAt().toString()).orElse(null));
    }

    /** An expression that resolves to nothing means UTC to the engine ({@code CronSchedule.zone}), as null does here. */
    private static String zone(String resolved) {
        return resolved == null || resolved.isEmpty() ? null : resolved;
    }

    /** The value a {@code ${…}} expression in the annotation stands for, as the engine reads it at startup. */
    private static String resolved(String value) {
        try {
            return ConfigExpressions.resolve(value);
        } catch (IllegalArgumentException e) {
            return value;
        }
    }

    @JsonRpcDescription("Reads the pending, running or dead job with that id; null when there is none")
    public Uni<JobView> find(@JsonRpcDescription("The queue of the job") String queue,
            @JsonRpcDescription("The id of the job") String id) {
        Uni<Optional<JobInfo>> found = ours(queue) ? scheduler.find(queue, id)
                : asStored(queue, k -> store.find(k, JobArguments.id(id)));
        return found.map(job -> job.map(JobView::of).orElse(null));
    }

    @JsonRpcDescription("Removes the pending, running, recurring or dead job with that id; false when there was none")
    public Uni<Boolean> cancel(@JsonRpcDescription("The queue of the job") String queue,
            @JsonRpcDescription("The id of the job") String id) {
        return ours(queue) ? scheduler.cancel(queue, id) : asStored(queue, k -> store.cancel(k, JobArguments.id(id)));
    }

    @JsonRpcDescription("Lists the newest dead letters of a queue")
    public Uni<List<JobView>> deadLetters(@JsonRpcDescription("The queue") String queue,
            @JsonRpcDescription("The most dead letters listed, 1 to 10000") int limit) {
        Uni<List<JobInfo>> dead = ours(queue) ? scheduler.deadLetters(queue, limit)
                : asStored(queue, k -> store.deadLetters(k, JobArguments.limit(limit)));
        return dead.map(jobs -> jobs.stream().map(JobView::of).toList());
    }

    @JsonRpcDescription("Moves a dead letter back to the pending jobs, due now, with its attempts reset; false when"
            + " the queue has no dead letter with that id")
    public Uni<Boolean> requeue(@JsonRpcDescription("The queue of the dead letter") String queue,
            @JsonRpcDescription("The id of the dead letter") String id) {
        return ours(queue) ? scheduler.requeue(queue, id) : asStored(queue, k -> store.requeue(k, JobArguments.id(id)));
    }

    /** Whether the queue has a handler here or settings under {@code quarkus.delayed-jobs.queues}. */
    private boolean ours(String queue) {
        return config.queues().containsKey(queue) || handlers.handlers().stream().anyMatch(h -> h.queue().equals(queue));
    }

    /**
     * An operation on a queue this application does not use, with the shard count recorded for it, and without the
     * checks of the public API that would make another application's count a disagreement of this one (readiness
     * DOWN) or record the queue's count again at each poll interval ({@link JobStore#asStored}). The arguments are
     * checked as the public API checks them.
     */
    private <T> Uni<T> asStored(String queue, Function<QueueKeys, Future<T>> operation) {
        return Uni.createFrom().completionStage(
                () -> store.asStored(JobArguments.queue(queue), operation).toCompletionStage());
    }
}
