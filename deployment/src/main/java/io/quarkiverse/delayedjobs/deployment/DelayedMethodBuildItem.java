package io.quarkiverse.delayedjobs.deployment;

import org.jboss.jandex.MethodInfo;

import io.quarkiverse.delayedjobs.MisfirePolicy;
import io.quarkiverse.delayedjobs.runtime.ExecutionModel;
import io.quarkus.arc.processor.BeanInfo;
import io.quarkus.arc.processor.InvokerInfo;
import io.quarkus.builder.item.MultiBuildItem;

/**
 * A valid {@code @Delayed} method, with the invoker generated for it.
 */
public final class DelayedMethodBuildItem extends MultiBuildItem {

    private final BeanInfo bean;
    private final MethodInfo method;
    private final String queue;
    private final ExecutionModel executionModel;
    private final int payloadIndex;
    private final int contextIndex;
    private final InvokerInfo invoker;
    private final String cron;
    private final String timeZone;
    private final MisfirePolicy misfire;

    DelayedMethodBuildItem(BeanInfo bean, MethodInfo method, String queue, ExecutionModel executionModel,
            int payloadIndex, int contextIndex, InvokerInfo invoker, String cron, String timeZone, MisfirePolicy misfire) {
        this.bean = bean;
        this.method = method;
        this.queue = queue;
        this.executionModel = executionModel;
        this.payloadIndex = payloadIndex;
        this.contextIndex = contextIndex;
        this.invoker = invoker;
        this.cron = cron;
        this.timeZone = timeZone;
        this.misfire = misfire;
    }

    public BeanInfo getBean() {
        return bean;
    }

    public MethodInfo getMethod() {
        return method;
    }

    public String getQueue() {
        return queue;
    }

    public ExecutionModel getExecutionModel() {
        return executionModel;
    }

    public int getPayloadIndex() {
        return payloadIndex;
    }

    public int getContextIndex() {
        return contextIndex;
    }

    public InvokerInfo getInvoker() {
        return invoker;
    }

    /** The cron expression, or null for a plain handler. */
    public String getCron() {
        return cron;
    }

    /** The time zone of the cron expression, or null for UTC. */
    public String getTimeZone() {
        return timeZone;
    }

    DelayedMethodBuildItem withInvoker(InvokerInfo invoker) {
        return new DelayedMethodBuildItem(bean, method, queue, executionModel, payloadIndex, contextIndex, invoker, cron,
                timeZone, misfire);
    }

    public MisfirePolicy getMisfire() {
        return misfire;
    }

    public String getMethodDescription() {
        return DelayedJobsProcessor.describe(method);
    }
}
