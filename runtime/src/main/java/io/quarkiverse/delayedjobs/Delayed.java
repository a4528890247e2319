package io.quarkiverse.delayedjobs;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of a queue of delayed jobs.
 * <p>
 * The method runs once a job of that queue is due, at least once, in exactly one instance at a time. It may declare
 * one payload parameter (any type Jackson can read, {@code String} or {@code JsonObject}) and one {@link JobContext}
 * parameter, in any order, and return {@code void}, {@code Uni<Void>} or {@code CompletionStage<Void>}.
 * <p>
 * A method returning {@code void} runs on a worker thread unless annotated {@code @NonBlocking}; an asynchronous one
 * runs on the event loop unless annotated {@code @Blocking} or {@code @Transactional} (on the method, its class or a
 * stereotype); {@code @RunOnVirtualThread} runs it on a virtual thread.
 * A queue has at most one handler per application; every rule is checked at build time.
 * <p>
 * With a {@link #cron()} the handler is also recurring: every instance that runs workers registers the schedule at
 * startup under the job id equal to the queue name, and each occurrence runs once across all instances.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Delayed {

    /**
     * The queue name, matching {@code [A-Za-z0-9._-]{1,64}}.
     */
    String value();

    /**
     * A cron expression that makes this handler recurring: Unix 5-field or Quartz 6/7-field. Empty for a plain
     * handler. May be a config expression such as {@code ${digest.cron}}; one that reads {@code off} or
     * {@code disabled} switches the schedule off and removes its job from Redis.
     */
    String cron() default "";

    /**
     * The time zone the cron expression is evaluated in, such as {@code Europe/Paris}; empty means UTC.
     */
    String timeZone() default "";

    /**
     * What the recurring job does with occurrences missed while no instance could run them.
     */
    MisfirePolicy misfire() default MisfirePolicy.FIRE_ONCE;
}
