package io.quarkiverse.delayedjobs.runtime;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.inject.Typed;
import jakarta.inject.Singleton;

import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkus.arc.All;

/**
 * Tells each listener in turn, and keeps what one throws from going further. The engine tells its listeners between
 * the steps of a job (before its handler runs, before its acknowledgement or retry is written), and a producer before
 * its {@code schedule} call returns: a listener that throws (Micrometer refusing a meter, say) would otherwise fail a
 * job whose handler never ran, leave a finished one claimed until its lease ends, fail a schedule call that Redis took,
 * and keep the listeners after it from being told. An {@code Error} too (an {@code AssertionError}, a class that failed
 * to load), as {@code JobEvents} treats observers; not the JVM's own. One bean, shared by the producers and the
 * engine, so that a listener failing on both sides is logged at WARN once.
 */
@Singleton
@Typed(GuardedListeners.class)
public final class GuardedListeners implements JobListener {

    private static final Logger LOG = Logger.getLogger(JobListener.class);

    private final JobListener[] all;
    /** Per listener, whether a failure of it was logged at WARN: it may fail once per job, which the log need not say. */
    private final AtomicBoolean[] warned;

    public GuardedListeners(@All List<JobListener> listeners) {
        this.all = listeners.toArray(JobListener[]::new);
        this.warned = new AtomicBoolean[all.length];
        for (int i = 0; i < all.length; i++) {
            warned[i] = new AtomicBoolean();
        }
    }

    @Override
    public void scheduled(String queue, ScheduleResult result) {
        for (int i = 0; i < all.length; i++) {
            try {
                all[i].scheduled(queue, result);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                failed(i, e);
            }
        }
    }

    @Override
    public void scheduleFailed(String queue) {
        for (int i = 0; i < all.length; i++) {
            try {
                all[i].scheduleFailed(queue);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                failed(i, e);
            }
        }
    }

    @Override
    public void started(JobContext job, long latenessMs) {
        for (int i = 0; i < all.length; i++) {
            try {
                all[i].started(job, latenessMs);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                failed(i, e);
            }
        }
    }

    @Override
    public void succeeded(JobContext job, long durationNanos) {
        for (int i = 0; i < all.length; i++) {
            try {
                all[i].succeeded(job, durationNanos);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                failed(i, e);
            }
        }
    }

    @Override
    public void failed(JobContext job, long durationNanos, Throwable failure) {
        for (int i = 0; i < all.length; i++) {
            try {
                all[i].failed(job, durationNanos, failure);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                failed(i, e);
            }
        }
    }

    @Override
    public void retried(JobContext job, Throwable failure) {
        for (int i = 0; i < all.length; i++) {
            try {
                all[i].retried(job, failure);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                failed(i, e);
            }
        }
    }

    @Override
    public void deadLettered(JobContext job, Throwable failure) {
        for (int i = 0; i < all.length; i++) {
            try {
                all[i].deadLettered(job, failure);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                failed(i, e);
            }
        }
    }

    private void failed(int listener, Throwable e) {
        if (warned[listener].compareAndSet(false, true)) {
            LOG.warnf(e, "%s failed, which changes nothing for the jobs (its later failures are logged at DEBUG): %s",
                    all[listener].getClass().getName(), e);
        } else {
            LOG.debugf(e, "%s failed", all[listener].getClass().getName());
        }
    }
}
