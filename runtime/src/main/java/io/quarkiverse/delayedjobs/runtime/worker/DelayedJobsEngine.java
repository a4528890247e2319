package io.quarkiverse.delayedjobs.runtime.worker;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.GuardedListeners;
import io.quarkiverse.delayedjobs.runtime.HandlerDefinition;
import io.quarkiverse.delayedjobs.runtime.HandlerRegistry;
import io.quarkiverse.delayedjobs.runtime.JobListener;
import io.quarkiverse.delayedjobs.runtime.PayloadCodec;
import io.quarkiverse.delayedjobs.runtime.config.DelayedJobsRuntimeConfig;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.cron.ConfigExpressions;
import io.quarkiverse.delayedjobs.runtime.cron.CronSchedule;
import io.quarkiverse.delayedjobs.runtime.cron.OccurrencePlanner;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkiverse.delayedjobs.runtime.tracing.JobTracing;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * Starts a worker per handled queue at startup, unless this instance is a producer only, and stops them gracefully.
 */
@Singleton
public class DelayedJobsEngine {

    private static final Logger LOG = Logger.getLogger(DelayedJobsEngine.class);
    private static final long STARTUP_TIMEOUT_SECONDS = 30;
    private static final long FIRST_REGISTRATION_RETRY_MS = 500;

    private final HandlerRegistry registry;
    private final JobStore store;
    private final PayloadCodec codec;
    private final Vertx vertx;
    private final DelayedJobsRuntimeConfig config;
    private final JobListener listener;
    private final JobTracing tracing;
    private final List<QueueWorker> workers = new ArrayList<>();
    /** The started workers, for the health checks; unlike {@link #workers}, not emptied by a stop, which they show. */
    private volatile List<StartedWorker> started = List.of();
    /**
     * The schedules of the {@code @Delayed(cron = ...)} methods, read at the start and registered again on news; empty
     * for one the configuration switched off.
     */
    private volatile Map<HandlerDefinition, Optional<CronSchedule>> staticSchedules = Map.of();
    private WakeListener wakeListener;
    private DueTimer dueTimer;
    private long heartbeatTimer = -1;
    /** Counts the times Redis came back: a registration left over from an earlier one stops trying. */
    private volatile long registrationRound;
    private volatile boolean stopping;
    private final FailedCalls failedRegistrations = new FailedCalls(LOG, "the registrations of the static schedules");

    public DelayedJobsEngine(HandlerRegistry registry, JobStore store, PayloadCodec codec, Vertx vertx,
            DelayedJobsRuntimeConfig config, GuardedListeners listener, Instance<JobTracing> tracing) {
        this.registry = registry;
        this.store = store;
        this.codec = codec;
        this.vertx = vertx;
        this.config = config;
        this.listener = listener;
        this.tracing = tracing.isResolvable() ? tracing.get() : JobTracing.NONE;
    }

    void start(@Observes StartupEvent event) throws Exception {
        if (registry.handlers().isEmpty()) {
            LOG.debug("No @Delayed handlers in this application: no delayed-jobs workers started");
            return;
        }
        if (!config.enabled()) {
            LOG.infof("Delayed-jobs workers not started: quarkus.delayed-jobs.enabled=false (producer only)");
            return;
        }
        // Read before anything is written: a value from the configuration may stop the start.
        Map<HandlerDefinition, Optional<CronSchedule>> schedules = new HashMap<>();
        for (HandlerDefinition handler : registry.handlers()) {
            if (handler.cron() != null) {
                schedules.put(handler, staticSchedule(handler));
            }
        }
        staticSchedules = Map.copyOf(schedules);
        List<QueueKeys> queues = new ArrayList<>();
        for (HandlerDefinition handler : registry.handlers()) {
            try {
                queues.add(await(store.queue(handler.queue())));
            } catch (ExecutionException e) {
                if (e.getCause() instanceof JobStore.ShardCountMismatch mismatch) {
                    // A setting that disagrees with Redis: refused as one out of its range is, in a line of its own.
                    throw new ConfigurationException(mismatch.getMessage(), Set.of(mismatch.setting()));
                }
                throw e;
            }
            if (handler.cron() != null) {
                await(registerSchedule(handler, staticSchedules.get(handler)));
            }
        }
        OccurrencePlanner planner = new OccurrencePlanner(config.catchUpLimit());
        FailedCalls failedCalls = new FailedCalls(Logger.getLogger(QueueWorker.class), "the calls of the queue workers");
        LostLeases lostLeases = new LostLeases(Logger.getLogger(QueueWorker.class), System::nanoTime);
        dueTimer = new DueTimer();
        Map<String, QueueWorker> byChannel = new HashMap<>();
        List<StartedWorker> views = new ArrayList<>();
        for (int i = 0; i < queues.size(); i++) {
            HandlerDefinition handler = registry.handlers().get(i);
            QueueKeys keys = queues.get(i);
            QueueWorker worker = new QueueWorker(keys, QueueSettings.of(config, handler.queue()), store,
                    new HandlerDispatcher(handler, codec, listener, tracing), vertx, dueTimer, config.pollInterval(), planner,
                    failedCalls, lostLeases);
            workers.add(worker);
            views.add(new StartedWorker(keys.queue(), worker.context(), worker::stopped));
            byChannel.put(keys.wakeChannel(), worker);
        }
        wakeListener = new WakeListener(store, vertx, byChannel, this::resubscribed);
        await(wakeListener.start());
        heartbeatTimer = vertx.setPeriodic(config.pollInterval().toMillis(), id -> {
            wakeListener.checkHeartbeat();
            // One SET per queue in use and poll interval: a count deleted by hand comes back, and one recorded anew
            // with another count is logged instead of leaving the jobs of the other shards to wait unseen.
            store.recordShardCountsNow();
        });
        // What broke the store's connection (a node frozen, a network cut) may have silenced the subscription too,
        // which nothing else would tell before the next heartbeat, a poll interval later.
        store.onConnectionLost(wakeListener::storeConnectionLost);
        store.onMasterSwitched(wakeListener::masterSwitched);
        workers.forEach(QueueWorker::start);
        started = List.copyOf(views);
        LOG.infof("Delayed-jobs workers started for queues %s",
                registry.handlers().stream().map(HandlerDefinition::queue).toList());
    }

    /**
     * A worker this engine started, as the health checks see it.
     *
     * @param queue the queue whose jobs it runs
     * @param context the event-loop context its state is confined to
     * @param stopped whether it was stopped; read it on {@code context}
     */
    public record StartedWorker(String queue, Context context, BooleanSupplier stopped) {
    }

    /**
     * The workers this engine started, in the order of their queues: none until it started them, nor in an instance
     * that runs no workers. They stay listed after a stop.
     */
    public List<StartedWorker> startedWorkers() {
        return started;
    }

    /**
     * The schedule of a {@code @Delayed(cron = ...)} method. The build checked its literal values; one read from the
     * configuration is checked here, and a bad one stops the application naming the method and the keys.
     */
    private static Optional<CronSchedule> staticSchedule(HandlerDefinition handler) {
        try {
            String cron = ConfigExpressions.resolve(handler.cron());
            if (ConfigExpressions.isExpression(handler.cron()) && ConfigExpressions.isOff(cron)) {
                return Optional.empty();
            }
            return Optional.of(CronSchedule.ofAnyTime(cron,
                    handler.timeZone() == null ? null : ConfigExpressions.resolve(handler.timeZone()),
                    handler.misfire()));
        } catch (IllegalArgumentException e) {
            Set<String> keys = new HashSet<>();
            for (String value : new String[] { handler.cron(), handler.timeZone() }) {
                String key = ConfigExpressions.key(value);
                if (key != null) {
                    keys.add(key);
                }
            }
            throw new ConfigurationException("The static schedule of " + handler.method() + " (cron = \""
                    + handler.cron() + "\"" + (handler.timeZone() == null ? ""
                            : ", timeZone = \"" + handler.timeZone() + "\"")
                    + "): " + e.getMessage(), keys);
        }
    }

    /**
     * Every instance registers the static schedules; the script keeps the armed occurrence when nothing changed. One
     * switched off is removed instead: the workers re-arm a stored recurring job from Redis, so it would go on firing.
     */
    private Future<Void> registerSchedule(HandlerDefinition handler, Optional<CronSchedule> configured) {
        if (configured.isEmpty()) {
            return store.cancel(handler.queue(), handler.queue()).map(removed -> {
                if (removed) {
                    LOG.infof("The static schedule of %s is switched off (cron = \"%s\", which reads \"%s\"): its job"
                            + " %s removed", handler.method(), handler.cron(), ConfigExpressions.resolve(handler.cron()),
                            handler.queue());
                } else {
                    LOG.debugf("The static schedule of %s is switched off (cron = \"%s\", which reads \"%s\"): no job"
                            + " to remove", handler.method(), handler.cron(), ConfigExpressions.resolve(handler.cron()));
                }
                return null;
            });
        }
        CronSchedule schedule = configured.get();
        if (schedule.next(Instant.now()).isEmpty()) {
            // A schedule limited to a year, deployed after it: nothing to arm, and no reason to refuse to start. A job
            // of an earlier, other definition goes, as a change replaces it: it would go on firing.
            return store.endedRecurring(handler.queue(), handler.queue(), "null", schedule).map(kept -> {
                LOG.infof("The recurring schedule '%s' of %s has ended: nothing is armed", schedule.expression(),
                        handler.method());
                LOG.debugf("Recurring schedule '%s' of %s: %s", schedule.encode(), handler.method(),
                        kept ? "its job with its last occurrence is kept" : "no job left");
                return null;
            });
        }
        return store.recurring(handler.queue(), handler.queue(), "null", schedule).map(scheduled -> {
            if (scheduled.result() == ScheduleResult.REPLACED) {
                // A rollout that changed it, a last occurrence left as a dead letter (armed again), or, when it comes
                // back at each start, another application with the same key prefix and queue and another schedule.
                LOG.infof("The recurring schedule '%s' of %s replaced what was stored for its job %s (another"
                        + " definition after a new deployment, or a dead letter; if this repeats at each start, another"
                        + " application with the same key prefix and queue and another schedule)", schedule.expression(),
                        handler.method(), handler.queue());
            } else {
                LOG.debugf("Recurring schedule '%s' of %s: %s", schedule.encode(), handler.method(), scheduled.result());
            }
            return null;
        });
    }

    /**
     * The wake subscription opened again after a lost connection, perhaps to a Redis that restarted without its data:
     * the shard counts are recorded again at the next use of each queue, and the static schedules
     * registered again, which keeps one still armed as it is.
     */
    private void resubscribed() {
        store.recordShardCountsAgain();
        long round = ++registrationRound;
        for (HandlerDefinition handler : registry.handlers()) {
            if (handler.cron() != null) {
                registerAgain(handler, round, FIRST_REGISTRATION_RETRY_MS);
            }
        }
    }

    /**
     * Registers a static schedule after Redis came back, until Redis takes it: one that restarted from its files may
     * accept connections while it still loads them, and refuse commands then (LOADING), for seconds or minutes. Tried
     * again after {@code pauseMs}, doubled each time up to the poll interval, until the engine stops or Redis comes
     * back once more, which starts a round of its own.
     */
    private void registerAgain(HandlerDefinition handler, long round, long pauseMs) {
        int part = registry.handlers().indexOf(handler);
        registerSchedule(handler, staticSchedules.get(handler)).onComplete(ar -> {
            if (ar.succeeded()) {
                failedRegistrations.succeeded(part);
                return;
            }
            if (round != registrationRound || stopping) {
                return;
            }
            failedRegistrations.failed(part, ar.cause(), "Could not register the static schedule of " + handler.method()
                    + " again after the wake subscription opened again; trying again in " + pauseMs + " ms");
            vertx.setTimer(pauseMs, id -> {
                if (round == registrationRound && !stopping) {
                    registerAgain(handler, round, Math.min(pauseMs * 2, config.pollInterval().toMillis()));
                }
            });
        });
    }

    void stop(@Observes ShutdownEvent event) {
        stop();
    }

    /**
     * Sends the jobs lingering in this producer, stops claiming, hands back claimed jobs that did not start, and waits
     * up to the shutdown timeout for running handlers and their last writes. Runs on {@link ShutdownEvent}, before the
     * Redis client closes.
     */
    public void stop() {
        stopping = true;
        // Jobs lingering in this producer go now, while the Redis client is still open.
        store.flushLingeringSchedules();
        if (workers.isEmpty()) {
            return;
        }
        List<Future<Void>> stopped = new ArrayList<>();
        for (QueueWorker worker : workers) {
            stopped.add(worker.stop());
        }
        try {
            Future.join(stopped).toCompletionStage().toCompletableFuture()
                    .get(config.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // Each worker says what it leaves behind (handlers still running, acks Redis did not take): what is left
            // may be only an ack that cannot be written. Waited for briefly, so that it is said before Vert.x closes.
            List<Future<Void>> abandoned = new ArrayList<>();
            for (QueueWorker worker : workers) {
                abandoned.add(worker.abandon(config.shutdownTimeout()));
            }
            try {
                Future.join(abandoned).toCompletionStage().toCompletableFuture().get(1, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // the stop goes on all the same
            }
        } catch (Exception e) {
            LOG.warn("Delayed-jobs workers did not stop cleanly", e);
        }
        // Null when the start failed before the listener existed.
        if (wakeListener != null) {
            vertx.cancelTimer(heartbeatTimer);
            store.onConnectionLost(node -> {
            });
            store.onMasterSwitched(() -> {
            });
            wakeListener.stop();
        }
        dueTimer.stop();
        workers.clear();
    }

    private static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(STARTUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
}
