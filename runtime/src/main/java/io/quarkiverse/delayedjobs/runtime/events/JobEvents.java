package io.quarkiverse.delayedjobs.runtime.events;

import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.spi.EventContext;
import jakarta.enterprise.inject.spi.EventMetadata;
import jakarta.enterprise.inject.spi.InjectionPoint;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.JobDeadLettered;
import io.quarkiverse.delayedjobs.JobFailed;
import io.quarkiverse.delayedjobs.JobSucceeded;
import io.quarkiverse.delayedjobs.runtime.JobListener;
import io.quarkiverse.delayedjobs.runtime.config.DelayedJobsRuntimeConfig;
import io.quarkus.arc.Arc;
import io.quarkus.arc.InjectableObserverMethod;
import io.quarkus.arc.ManagedContext;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;

/**
 * Fires {@link JobSucceeded}, {@link JobFailed} and {@link JobDeadLettered}. An event nobody observes costs nothing.
 * Synchronous observers run on threads of their own, never on the event loop of the queue worker that told of the job
 * nor on the worker pool, so that an observer may block (write to a database, say) without holding up the claims or the
 * handlers; they see the events of one job in order, those of different jobs side by side. Each is told on its own:
 * one that throws is logged, and the observers after it are told all the same.
 */
@Singleton
public class JobEvents implements JobListener {

    private static final Logger LOG = Logger.getLogger(JobEvents.class);

    private static final String OBSERVER_THREADS = "delayed-jobs-events";

    private final Kind<JobSucceeded> succeeded;
    private final Kind<JobFailed> failed;
    private final Kind<JobDeadLettered> deadLettered;
    /**
     * Per job, its last event whose synchronous observers have not all returned: the job's next event waits for it,
     * so that they see a job's events in order (a failure before the dead letter it caused) however long they take.
     */
    private final ConcurrentMap<String, Future<Void>> unnotified = new ConcurrentHashMap<>();

    /**
     * Where synchronous observers run, apart from the worker pool: observers that block would otherwise take its
     * threads one event after the other, until blocking handlers (and the rest of the application) found none.
     */
    private final WorkerExecutor observerThreads;
    private final Duration shutdownTimeout;
    /**
     * Whether the application stopped: a handler left behind by the stop that ends later fires nothing. In dev mode the
     * next application runs by then, and an observer of this one would put an instance of its bean's old class into
     * the new application's context (ArC's container is one for both), where the new observers fail to cast it.
     */
    private volatile boolean stopped;

    public JobEvents(Vertx vertx, DelayedJobsRuntimeConfig config, Event<JobSucceeded> succeeded,
            Event<JobFailed> failed, Event<JobDeadLettered> deadLettered) {
        this.succeeded = new Kind<>(JobSucceeded.class, succeeded);
        this.failed = new Kind<>(JobFailed.class, failed);
        this.deadLettered = new Kind<>(JobDeadLettered.class, deadLettered);
        this.observerThreads = this.succeeded.sync || this.failed.sync || this.deadLettered.sync
                ? vertx.createSharedWorkerExecutor(OBSERVER_THREADS, config.observerThreads())
                : null;
        this.shutdownTimeout = config.shutdownTimeout();
    }

    /**
     * Lets the synchronous observers finish the events fired before the stop (those of the handlers the graceful stop
     * waited for among them), waiting at most {@code shutdown-timeout}, then closes their threads, which outlive the
     * application otherwise (in dev mode, Vert.x outlives a restart): closing them at once interrupted an observer at
     * work and dropped the events queued behind it.
     */
    @PreDestroy
    void close() {
        if (observerThreads == null) {
            stopped = true;
            return;
        }
        long deadline = System.nanoTime() + shutdownTimeout.toNanos();
        try {
            // An event queued behind another of its job is added once that one is told: until none is left.
            while (!unnotified.isEmpty()) {
                Future.join(List.copyOf(unnotified.values())).toCompletionStage().toCompletableFuture()
                        .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (TimeoutException e) {
            LOG.warnf("Observers of the events of %d jobs were still at work after %s; they are stopped",
                    unnotified.size(), shutdownTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e); // never: each job's future completes once its observers returned
        }
        stopped = true;
        observerThreads.close();
    }

    @Override
    public void succeeded(JobContext job, long durationNanos) {
        if (succeeded.observed()) {
            fire(succeeded, job, new JobSucceeded(job, Duration.ofNanos(durationNanos)));
        }
    }

    @Override
    public void failed(JobContext job, long durationNanos, Throwable failure) {
        if (failed.observed()) {
            fire(failed, job, new JobFailed(job, failure, Duration.ofNanos(durationNanos)));
        }
    }

    @Override
    public void deadLettered(JobContext job, Throwable failure) {
        if (deadLettered.observed()) {
            fire(deadLettered, job, new JobDeadLettered(job, failure));
        }
    }

    private <T> void fire(Kind<T> kind, JobContext job, T event) {
        if (stopped) {
            LOG.debugf("%s came after the application stopped: no observer is told", event);
            return;
        }
        if (kind.sync) {
            // An id names a job within its queue only.
            String key = job.queue() + '/' + job.id();
            Promise<Void> notified = Promise.promise();
            Future<Void> previous = unnotified.put(key, notified.future());
            if (previous == null) {
                notifySync(kind, event, key, notified);
            } else {
                previous.onComplete(ar -> notifySync(kind, event, key, notified));
            }
        }
        if (kind.async) {
            kind.event.fireAsync(event).exceptionally(e -> {
                LOG.warnf(e, "An asynchronous observer of %s failed", event);
                return null;
            });
        }
    }

    /** Tells the synchronous observers on one of their threads, unordered with the events of other jobs. */
    private <T> void notifySync(Kind<T> kind, T event, String key, Promise<Void> notified) {
        observerThreads.executeBlocking(() -> {
            notifyEach(kind, event);
            return null;
        }, false).onComplete(ar -> {
            if (ar.failed()) {
                LOG.warnf(ar.cause(), "An observer of %s failed", event);
            }
            unnotified.remove(key, notified.future());
            notified.complete();
        });
    }

    /**
     * Tells each synchronous observer in the order of their priorities, within a request context as CDI's own
     * {@code fire()} does; unlike {@code fire()}, which stops at the first observer that throws, it tells the others
     * too.
     */
    @SuppressWarnings({ "unchecked", "rawtypes" })
    private <T> void notifyEach(Kind<T> kind, T event) {
        ManagedContext requestContext = Arc.container().requestContext();
        boolean activated = !requestContext.isActive();
        if (activated) {
            requestContext.activate();
        }
        try {
            EventContext context = new Context<>(event, kind.metadata);
            for (InjectableObserverMethod<? super T> observer : kind.syncObservers) {
                try {
                    ((InjectableObserverMethod) observer).notify(context);
                } catch (VirtualMachineError e) {
                    throw e;
                } catch (Throwable e) {
                    // An Error too (an AssertionError, a class that failed to load): the observers after it are told.
                    LOG.warnf(e, "An observer of %s failed: %s", event, observer);
                }
            }
        } finally {
            if (activated) {
                requestContext.terminate();
            }
        }
    }

    private record Context<T>(T event, EventMetadata metadata) implements EventContext<T> {

        @Override
        public T getEvent() {
            return event;
        }

        @Override
        public EventMetadata getMetadata() {
            return metadata;
        }
    }

    /** Those of an event fired without qualifiers, as {@code Event.fire()} fires it. */
    private static final Set<Annotation> QUALIFIERS = Set.of(Default.Literal.INSTANCE, Any.Literal.INSTANCE);

    /** One event type, and which kinds of observers it has: they are known once the application is built. */
    private static final class Kind<T> {
        final Event<T> event;
        /** In the order they are told in: by their priorities. */
        final List<InjectableObserverMethod<? super T>> syncObservers;
        final boolean sync;
        final boolean async;
        final EventMetadata metadata;

        Kind(Class<T> type, Event<T> event) {
            this.event = event;
            // An event fired without qualifiers has @Default and @Any: observers declaring either are told too.
            List<InjectableObserverMethod<? super T>> observers = Arc.container().resolveObserverMethods(type,
                    QUALIFIERS.toArray(Annotation[]::new));
            this.syncObservers = observers.stream().filter(o -> !o.isAsync()).sorted().toList();
            this.sync = !syncObservers.isEmpty();
            this.async = observers.stream().anyMatch(o -> o.isAsync());
            this.metadata = new EventMetadata() {
                @Override
                public Set<Annotation> getQualifiers() {
                    return QUALIFIERS;
                }

                @Override
                public InjectionPoint getInjectionPoint() {
                    return null;
                }

                @Override
                public Type getType() {
                    return type;
                }
            };
        }

        boolean observed() {
            return sync || async;
        }
    }
}
