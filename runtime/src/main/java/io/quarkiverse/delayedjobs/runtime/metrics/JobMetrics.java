package io.quarkiverse.delayedjobs.runtime.metrics;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;

import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.noop.NoopCounter;
import io.micrometer.core.instrument.noop.NoopTimer;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.QueueStats;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.HandlerRegistry;
import io.quarkiverse.delayedjobs.runtime.JobListener;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.vertx.core.Context;
import io.vertx.core.Promise;

/**
 * Micrometer meters of the jobs, tagged with their queue: counters and timers kept by this instance, and the
 * queue-wide pending, running and dead gauges of the queues it handles, read from Redis when the gauges are read.
 */
@Singleton
public class JobMetrics implements JobListener {

    private static final Logger LOG = Logger.getLogger(JobMetrics.class);
    /** The three gauges of a queue, read one after the other by one scrape, share one reading of its figures. */
    private static final long STATS_FRESH_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long STATS_WAIT_SECONDS = 2;

    private final MeterRegistry registry;
    private final JobStore store;
    /**
     * Per queue: the counters of its {@code schedule} calls, and the meters of its deliveries, made when first needed:
     * a producer to many queues gets no delivery meters of queues it does not run.
     */
    private final ConcurrentMap<String, Counter[]> scheduled = new ConcurrentHashMap<>();
    /** The index of the failed calls among a queue's schedule counters, after one per {@link ScheduleResult}. */
    private static final int FAILED = ScheduleResult.values().length;
    private final ConcurrentMap<String, QueueMeters> queues = new ConcurrentHashMap<>();
    /** The figures behind the gauges, one per queue with a handler here. */
    private final List<StatsReading> readings;

    public JobMetrics(MeterRegistry registry, JobStore store, HandlerRegistry handlers) {
        this.registry = registry;
        this.store = store;
        // All of them before the first gauge, which a scrape may read at once and which reads them all.
        this.readings = handlers.handlers().stream().map(handler -> new StatsReading(handler.queue())).toList();
        readings.forEach(this::registerGauges);
    }

    @Override
    public void scheduled(String queue, ScheduleResult result) {
        scheduled.computeIfAbsent(queue, this::scheduleCounters)[result.ordinal()].increment();
    }

    @Override
    public void scheduleFailed(String queue) {
        scheduled.computeIfAbsent(queue, this::scheduleCounters)[FAILED].increment();
    }

    @Override
    public void started(JobContext job, long latenessMs) {
        QueueMeters meters = meters(job.queue());
        meters.started.increment();
        // A later attempt keeps the job's due time: its lateness would be its backoff, or the lease it waited out.
        if (job.attempt() == 1) {
            // Below zero only by the error of the clock offset: a job never starts before it is due by Redis.
            meters.lateness.record(Math.max(0, latenessMs), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void succeeded(JobContext job, long durationNanos) {
        QueueMeters meters = meters(job.queue());
        meters.succeeded.increment();
        meters.duration.record(durationNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void failed(JobContext job, long durationNanos, Throwable failure) {
        QueueMeters meters = meters(job.queue());
        meters.failed.increment();
        meters.duration.record(durationNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void retried(JobContext job, Throwable failure) {
        meters(job.queue()).retried.increment();
    }

    @Override
    public void deadLettered(JobContext job, Throwable failure) {
        meters(job.queue()).deadLettered.increment();
    }

    private QueueMeters meters(String queue) {
        return queues.computeIfAbsent(queue, QueueMeters::new);
    }

    /** The counters of a queue's {@code schedule} calls: one per result, then the failed calls. */
    private Counter[] scheduleCounters(String queue) {
        Counter[] counters = new Counter[FAILED + 1];
        for (ScheduleResult result : ScheduleResult.values()) {
            counters[result.ordinal()] = scheduleCounter(queue, result.name().toLowerCase(Locale.ROOT));
        }
        counters[FAILED] = scheduleCounter(queue, "failed");
        return counters;
    }

    private Counter scheduleCounter(String queue, String result) {
        return counter("delayed.jobs.scheduled", "Schedule calls, by their result", Tags.of("queue", queue, "result",
                result));
    }

    /**
     * Registers a counter. One that Micrometer refuses (an application meter of another type has its name and tags,
     * say) is logged once and counts nothing, and the other meters of its queue count all the same.
     */
    private Counter counter(String name, String description, Tags tags) {
        try {
            return Counter.builder(name).description(description).tags(tags).register(registry);
        } catch (RuntimeException e) {
            refused(name, tags, e);
            return new NoopCounter(new Meter.Id(name, tags, null, description, Meter.Type.COUNTER));
        }
    }

    /** Registers a timer, as {@link #counter} a counter. */
    private Timer timer(String name, String description, Tags tags) {
        try {
            return Timer.builder(name).description(description).tags(tags).register(registry);
        } catch (RuntimeException e) {
            refused(name, tags, e);
            return new NoopTimer(new Meter.Id(name, tags, null, description, Meter.Type.TIMER));
        }
    }

    private static void refused(String name, Tags tags, RuntimeException e) {
        LOG.warnf(e, "Could not register the meter %s %s; it is left out, the jobs and the other meters go on: %s",
                name, tags, e.getMessage());
    }

    private final class QueueMeters {
        final Counter started;
        final Counter succeeded;
        final Counter failed;
        final Counter retried;
        final Counter deadLettered;
        final Timer lateness;
        final Timer duration;

        QueueMeters(String queue) {
            Tags tags = Tags.of("queue", queue);
            started = counter("delayed.jobs.started", "Deliveries handed to a handler", tags);
            succeeded = counter("delayed.jobs.succeeded", "Deliveries whose handler succeeded", tags);
            failed = counter("delayed.jobs.failed",
                    "Deliveries whose handler failed, or whose success was not recorded (lease lost)", tags);
            retried = counter("delayed.jobs.retried", "Failed deliveries whose job is due again after a backoff",
                    tags);
            deadLettered = counter("delayed.jobs.dead.lettered",
                    "Jobs moved to the dead letters: failed last attempts, and leases run out on a last attempt", tags);
            lateness = timer("delayed.jobs.lateness",
                    "How long after its due time the first delivery of a job started", tags);
            duration = timer("delayed.jobs.duration", "How long handlers ran", tags);
        }
    }

    private void registerGauges(StatsReading reading) {
        String queue = reading.queue;
        gauge("delayed.jobs.pending", "Jobs waiting for their due time or a worker, in the whole queue", queue,
                reading, QueueStats::pending, null);
        gauge("delayed.jobs.running", "Jobs claimed by a worker, in the whole queue", queue, reading,
                QueueStats::running, null);
        gauge("delayed.jobs.dead", "Dead letters of the queue", queue, reading, QueueStats::dead, null);
        gauge("delayed.jobs.lag", "How long the queue's earliest due job has waited past its due time", queue,
                reading, stats -> stats.lag().toNanos() / 1e9, "seconds");
    }

    private void gauge(String name, String description, String queue, StatsReading reading,
            ToDoubleFunction<QueueStats> figure, String baseUnit) {
        try {
            Gauge.builder(name, reading, r -> r.value(figure)).description(description).tag("queue", queue)
                    .baseUnit(baseUnit).strongReference(true).register(registry);
        } catch (RuntimeException e) {
            // A meter of the application with this name and another type, say: the jobs run all the same.
            refused(name, Tags.of("queue", queue), e);
        }
    }

    /**
     * A gauge whose figures are stale starts a reading of every queue whose figures are: a scrape reads the gauges one
     * queue after the other, and readings started together share one deadline, so that the scrape waits
     * {@value #STATS_WAIT_SECONDS} s at most in all, not that long for each queue in turn.
     */
    private void readStaleFigures() {
        long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(STATS_WAIT_SECONDS);
        for (StatsReading reading : readings) {
            reading.startIfStale(deadlineNanos);
        }
    }

    /** The figures of a queue, the last ones Redis gave, and when it last answered or failed to answer for them. */
    private record Figures(QueueStats stats, long readAtNanos) {
    }

    /** A reading under way, and how long a gauge waits for it. */
    private record Pending(Promise<Void> done, long deadlineNanos) {
    }

    /**
     * The figures of a queue, read again when a gauge is read and the last reading, successful or not, is more than a
     * second old: Redis hears nothing from the gauges unless someone looks at them, and one call a second for each
     * queue at most when someone does, also while it refuses the script. Off an event loop the gauge waits for a
     * reading under way until its deadline (a scrape sees current figures, and so does a second scrape meanwhile); on
     * one it shows the last reading and the next one is on its way.
     */
    private final class StatsReading {
        private final String queue;
        private final AtomicReference<Pending> pending = new AtomicReference<>();
        /** Null until a first reading ended; its stats are null until one succeeded. */
        private volatile Figures last;

        StatsReading(String queue) {
            this.queue = queue;
        }

        double value(ToDoubleFunction<QueueStats> figure) {
            if (stale()) {
                readStaleFigures();
            }
            awaitPending();
            Figures figures = last;
            return figures == null || figures.stats() == null || overdue() ? Double.NaN
                    : figure.applyAsDouble(figures.stats());
        }

        /**
         * A reading still under way past its deadline: Redis is slow to answer, or does not (a frozen process), and
         * the figures of before would look current for as long as {@code redis-timeout}.
         */
        private boolean overdue() {
            Pending reading = pending.get();
            return reading != null && System.nanoTime() - reading.deadlineNanos() >= 0;
        }

        /** Neither fresh nor being read. */
        private boolean stale() {
            return pending.get() == null && !fresh();
        }

        private boolean fresh() {
            Figures figures = last;
            return figures != null && System.nanoTime() - figures.readAtNanos() < STATS_FRESH_NANOS;
        }

        void startIfStale(long deadlineNanos) {
            if (!stale()) {
                return;
            }
            Pending reading = new Pending(Promise.promise(), deadlineNanos);
            if (!pending.compareAndSet(null, reading)) {
                return;
            }
            if (fresh()) {
                // A reading ended between the look and the claim.
                pending.set(null);
                return;
            }
            store.stats(queue).onComplete(ar -> {
                if (ar.failed()) {
                    LOG.debugf(ar.cause(), "Could not read the figures of queue %s for its gauges", queue);
                }
                // A reading that failed shows as NaN: the figures of before would look current.
                last = new Figures(ar.succeeded() ? ar.result() : null, System.nanoTime());
                pending.set(null);
                reading.done().complete();
            });
        }

        private void awaitPending() {
            Pending reading = pending.get();
            if (reading == null || Context.isOnEventLoopThread()) {
                return;
            }
            long leftNanos = reading.deadlineNanos() - System.nanoTime();
            if (leftNanos <= 0) {
                return;
            }
            try {
                reading.done().future().toCompletionStage().toCompletableFuture().get(leftNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // Past its deadline: the gauge shows the last reading, and this one is still on its way.
            }
        }
    }
}
