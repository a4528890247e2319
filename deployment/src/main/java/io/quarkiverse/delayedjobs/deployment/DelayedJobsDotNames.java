package io.quarkiverse.delayedjobs.deployment;

import org.jboss.jandex.DotName;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.JobContext;

final class DelayedJobsDotNames {

    static final DotName DELAYED = DotName.createSimple(Delayed.class);
    static final DotName JOB_CONTEXT = DotName.createSimple(JobContext.class);
    static final DotName VOID = DotName.createSimple(Void.class);
    static final DotName UNI = DotName.createSimple("io.smallrye.mutiny.Uni");
    static final DotName COMPLETION_STAGE = DotName.createSimple("java.util.concurrent.CompletionStage");
    static final DotName BLOCKING = DotName.createSimple("io.smallrye.common.annotation.Blocking");
    static final DotName NON_BLOCKING = DotName.createSimple("io.smallrye.common.annotation.NonBlocking");
    static final DotName RUN_ON_VIRTUAL_THREAD = DotName.createSimple("io.smallrye.common.annotation.RunOnVirtualThread");
    static final DotName INTERCEPTOR = DotName.createSimple("jakarta.interceptor.Interceptor");
    static final DotName DECORATOR = DotName.createSimple("jakarta.decorator.Decorator");
    static final DotName TRANSACTIONAL = DotName.createSimple("jakarta.transaction.Transactional");
    static final DotName JSON_DESERIALIZE = DotName
            .createSimple("com.fasterxml.jackson.databind.annotation.JsonDeserialize");
    static final DotName STEREOTYPE = DotName.createSimple("jakarta.enterprise.inject.Stereotype");

    private DelayedJobsDotNames() {
    }
}
