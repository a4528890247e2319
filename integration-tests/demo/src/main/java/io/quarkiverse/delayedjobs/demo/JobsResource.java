package io.quarkiverse.delayedjobs.demo;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response.Status;

import org.jboss.resteasy.reactive.RestResponse;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.quarkiverse.delayedjobs.DelayedJobsException;
import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.OnConflict;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.runtime.configuration.DurationConverter;

/**
 * Schedule, find and cancel jobs of the demo queue, and read its figures:
 *
 * <pre>
 * curl -X POST 'localhost:8080/demo/jobs/hello?delay=3s' -H 'Content-Type: application/json' -d '{"text":"hi"}'
 * curl localhost:8080/demo/jobs/hello
 * curl -X DELETE localhost:8080/demo/jobs/hello
 * curl localhost:8080/demo/stats
 * curl localhost:8080/demo/fired
 * </pre>
 */
@Path("/demo")
@Produces(MediaType.APPLICATION_JSON)
public class JobsResource {

    /** What {@code POST /demo/jobs/{id}} did. */
    public record Scheduled(String queue, String id, ScheduleResult result, JobView job) {
    }

    /** The figures of the demo queue. */
    public record Stats(String queue, long pending, long running, long dead, Instant nextDueAt, long lagMs) {
    }

    /** An error answer. */
    public record Problem(String error) {
    }

    private final DelayedScheduler scheduler;
    private final Firings firings;

    JobsResource(DelayedScheduler scheduler, Firings firings) {
        this.scheduler = scheduler;
        this.firings = firings;
    }

    /**
     * Schedules a job of the demo queue.
     *
     * @param delay from now by the Redis clock, as {@code 5s}, {@code 500ms}, {@code 2m} or {@code PT5S}
     * @param onConflict KEEP, REPLACE, KEEP_EARLIER or KEEP_LATER, when a job with that id exists
     * @param reminder the payload; {@code failures} makes that many deliveries fail first
     */
    @POST
    @Path("/jobs/{id}")
    @Consumes(MediaType.APPLICATION_JSON)
    public Scheduled schedule(@PathParam("id") String id, @QueryParam("delay") @DefaultValue("5s") String delay,
            @QueryParam("onConflict") @DefaultValue("KEEP") String onConflict, Reminder reminder) {
        Duration wait = parseDelay(delay);
        OnConflict conflict = parseOnConflict(onConflict);
        Reminder payload = reminder == null ? new Reminder("scheduled over REST", 0) : reminder;
        ScheduleResult result = scheduler.schedule(DemoHandler.QUEUE, id, payload, wait, conflict);
        return new Scheduled(DemoHandler.QUEUE, id, result,
                scheduler.find(DemoHandler.QUEUE, id).map(JobView::of).orElse(null));
    }

    /** The pending, running or dead job with that id. */
    @GET
    @Path("/jobs/{id}")
    public RestResponse<JobView> find(@PathParam("id") String id) {
        return scheduler.find(DemoHandler.QUEUE, id).map(JobView::of).map(RestResponse::ok)
                .orElseGet(() -> RestResponse.status(Status.NOT_FOUND));
    }

    /** Cancels the job with that id: 200 when there was one, 404 otherwise. */
    @DELETE
    @Path("/jobs/{id}")
    public RestResponse<Map<String, Object>> cancel(@PathParam("id") String id) {
        boolean cancelled = scheduler.cancel(DemoHandler.QUEUE, id);
        return RestResponse.status(cancelled ? Status.OK : Status.NOT_FOUND, Map.of("id", id, "cancelled", cancelled));
    }

    @GET
    @Path("/stats")
    public Stats stats() {
        QueueStats stats = scheduler.stats(DemoHandler.QUEUE);
        return new Stats(DemoHandler.QUEUE, stats.pending(), stats.running(), stats.dead(),
                stats.nextDueAt().orElse(null), stats.lag().toMillis());
    }

    /** The latest runs of the handler in this instance, oldest first. */
    @GET
    @Path("/fired")
    public List<Firing> fired() {
        return firings.all();
    }

    @ServerExceptionMapper
    RestResponse<Problem> badArgument(IllegalArgumentException e) {
        return RestResponse.status(Status.BAD_REQUEST, new Problem(e.getMessage()));
    }

    @ServerExceptionMapper
    RestResponse<Problem> redisFailure(DelayedJobsException e) {
        return RestResponse.status(Status.SERVICE_UNAVAILABLE, new Problem(e.getMessage()));
    }

    private static Duration parseDelay(String delay) {
        try {
            return DurationConverter.parseDuration(delay);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("delay must be a duration such as 5s, 500ms, 2m or PT5S, was '" + delay
                    + "'");
        }
    }

    private static OnConflict parseOnConflict(String onConflict) {
        try {
            return OnConflict.valueOf(onConflict);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("onConflict must be one of " + Arrays.toString(OnConflict.values())
                    + ", was '" + onConflict + "'");
        }
    }
}
