package io.quarkiverse.delayedjobs.deployment;

import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.BLOCKING;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.COMPLETION_STAGE;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.DECORATOR;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.DELAYED;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.INTERCEPTOR;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.JOB_CONTEXT;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.JSON_DESERIALIZE;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.NON_BLOCKING;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.RUN_ON_VIRTUAL_THREAD;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.STEREOTYPE;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.TRANSACTIONAL;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.UNI;
import static io.quarkiverse.delayedjobs.deployment.DelayedJobsDotNames.VOID;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import jakarta.inject.Singleton;

import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.AnnotationValue;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.ClassType;
import org.jboss.jandex.DotName;
import org.jboss.jandex.IndexView;
import org.jboss.jandex.MethodInfo;
import org.jboss.jandex.Type;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

import io.quarkiverse.delayedjobs.MisfirePolicy;
import io.quarkiverse.delayedjobs.runtime.DelayedJobsRecorder;
import io.quarkiverse.delayedjobs.runtime.DelayedSchedulerImpl;
import io.quarkiverse.delayedjobs.runtime.ExecutionModel;
import io.quarkiverse.delayedjobs.runtime.GuardedListeners;
import io.quarkiverse.delayedjobs.runtime.HandlerDefinition;
import io.quarkiverse.delayedjobs.runtime.HandlerRegistry;
import io.quarkiverse.delayedjobs.runtime.JobArguments;
import io.quarkiverse.delayedjobs.runtime.PayloadCodec;
import io.quarkiverse.delayedjobs.runtime.ReactiveDelayedSchedulerImpl;
import io.quarkiverse.delayedjobs.runtime.config.DelayedJobsBuildTimeConfig;
import io.quarkiverse.delayedjobs.runtime.cron.ConfigExpressions;
import io.quarkiverse.delayedjobs.runtime.cron.CronSchedule;
import io.quarkiverse.delayedjobs.runtime.events.JobEvents;
import io.quarkiverse.delayedjobs.runtime.metrics.JobMetrics;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.RedisClientOptions;
import io.quarkiverse.delayedjobs.runtime.tracing.OpenTelemetryJobTracing;
import io.quarkiverse.delayedjobs.runtime.worker.DelayedJobsEngine;
import io.quarkus.arc.BeanDestroyer;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.AutoAddScopeBuildItem;
import io.quarkus.arc.deployment.BeanArchiveIndexBuildItem;
import io.quarkus.arc.deployment.BeanDiscoveryFinishedBuildItem;
import io.quarkus.arc.deployment.InvokerFactoryBuildItem;
import io.quarkus.arc.deployment.SyntheticBeanBuildItem;
import io.quarkus.arc.deployment.TransformedAnnotationsBuildItem;
import io.quarkus.arc.deployment.UnremovableBeanBuildItem;
import io.quarkus.arc.deployment.ValidationPhaseBuildItem.ValidationErrorBuildItem;
import io.quarkus.arc.processor.BeanInfo;
import io.quarkus.arc.processor.BuiltinScope;
import io.quarkus.arc.processor.InvokerInfo;
import io.quarkus.arc.processor.StereotypeInfo;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ReflectiveHierarchyBuildItem;
import io.quarkus.deployment.execannotations.ExecutionModelAnnotationsAllowedBuildItem;
import io.quarkus.deployment.metrics.MetricsCapabilityBuildItem;
import io.quarkus.deployment.recording.RecorderContext;
import io.quarkus.deployment.util.IoUtil;
import io.quarkus.redis.client.RedisClientName;
import io.quarkus.redis.deployment.client.RequestedRedisClientBuildItem;
import io.quarkus.redis.runtime.client.config.RedisConfig;
import io.quarkus.runtime.RuntimeValue;
import io.quarkus.runtime.metrics.MetricsFactory;
import io.quarkus.smallrye.health.deployment.spi.HealthBuildItem;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;

class DelayedJobsProcessor {

    private static final String FEATURE = "delayed-jobs";
    /**
     * By name: the classes implement the SmallRye Health API, which only applications with
     * {@code quarkus-smallrye-health} have.
     */
    private static final String READINESS_CHECK = "io.quarkiverse.delayedjobs.runtime.health.DelayedJobsReadinessCheck";
    private static final String LIVENESS_CHECK = "io.quarkiverse.delayedjobs.runtime.health.DelayedJobsLivenessCheck";

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep
    void beans(BuildProducer<AdditionalBeanBuildItem> beans, BuildProducer<AutoAddScopeBuildItem> autoScopes,
            BuildProducer<UnremovableBeanBuildItem> unremovable) {
        beans.produce(AdditionalBeanBuildItem.builder().setUnremovable()
                .addBeanClasses(PayloadCodec.class, ReactiveDelayedSchedulerImpl.class, DelayedSchedulerImpl.class,
                        DelayedJobsEngine.class, RedisClientOptions.class, JobEvents.class, GuardedListeners.class)
                .build());
        // Not an inner class, of which CDI makes no bean, nor an interceptor or a decorator, which must be @Dependent:
        // their @Delayed methods get build errors of their own.
        autoScopes.produce(AutoAddScopeBuildItem.builder().containsAnnotations(DELAYED)
                .and((clazz, annotations, index) -> !isInner(clazz) && !interceptorOrDecorator(clazz))
                .defaultScope(BuiltinScope.SINGLETON)
                .unremovable().reason("Found @Delayed methods").build());
    }

    @BuildStep
    void metrics(Optional<MetricsCapabilityBuildItem> metrics, DelayedJobsBuildTimeConfig config,
            BuildProducer<AdditionalBeanBuildItem> beans) {
        if (config.metrics().enabled() && metrics.isPresent() && metrics.get().metricsSupported(MetricsFactory.MICROMETER)) {
            beans.produce(AdditionalBeanBuildItem.unremovableOf(JobMetrics.class));
        }
    }

    @BuildStep
    void tracing(Capabilities capabilities, DelayedJobsBuildTimeConfig config, BuildProducer<AdditionalBeanBuildItem> beans) {
        if (config.tracing().enabled() && capabilities.isPresent(Capability.OPENTELEMETRY_TRACER)) {
            beans.produce(AdditionalBeanBuildItem.unremovableOf(OpenTelemetryJobTracing.class));
        }
    }

    @BuildStep
    ExecutionModelAnnotationsAllowedBuildItem executionModelAnnotations() {
        return new ExecutionModelAnnotationsAllowedBuildItem(method -> method.hasDeclaredAnnotation(DELAYED));
    }

    /** Taken only when the application has SmallRye Health, which then makes beans of the enabled checks. */
    @BuildStep
    void healthChecks(DelayedJobsBuildTimeConfig config, BuildProducer<HealthBuildItem> checks) {
        checks.produce(new HealthBuildItem(READINESS_CHECK, config.health().enabled()));
        checks.produce(new HealthBuildItem(LIVENESS_CHECK, config.health().enabled()));
    }

    @BuildStep
    RequestedRedisClientBuildItem redisClient(DelayedJobsBuildTimeConfig config) {
        return new RequestedRedisClientBuildItem(config.redisClientName().orElse(RedisConfig.DEFAULT_CLIENT_NAME));
    }

    /**
     * Finds the {@code @Delayed} methods of beans, reports every broken rule at once, and generates an invoker for
     * each valid one.
     */
    @BuildStep
    void discover(BeanDiscoveryFinishedBuildItem beanDiscovery, TransformedAnnotationsBuildItem annotations,
            CombinedIndexBuildItem combinedIndex, BeanArchiveIndexBuildItem beanArchiveIndex,
            InvokerFactoryBuildItem invokerFactory,
            BuildProducer<DelayedMethodBuildItem> methods, BuildProducer<ValidationErrorBuildItem> errors,
            BuildProducer<ReflectiveHierarchyBuildItem> reflection) {
        IndexView index = combinedIndex.getIndex();
        // Superclasses may come from a dependency that has no Jandex index: ArC makes beans of their subclasses all
        // the same, and their methods are inherited. ArC's own index reads such classes when asked, and its invokers
        // take only the methods it read.
        IndexView hierarchy = beanArchiveIndex.getIndex();
        List<Throwable> problems = new ArrayList<>();
        Map<String, QueueHandler> handlerOfQueue = new HashMap<>();
        List<BeanInfo> classBeans = beanDiscovery.beanStream().classBeans().collect();
        Set<DotName> replaced = replacedByAlternatives(classBeans, hierarchy);
        List<BeanInfo> beans = classBeans.stream().filter(b -> !replaced.contains(b.getBeanClass()))
                .sorted(Comparator.comparing(b -> b.getBeanClass().toString())).toList();
        // The @Delayed methods that some bean declares, inherits or overrides: any other would never run.
        Set<String> reached = new HashSet<>();
        // Abstract @Delayed methods, by key: a rule of their own, whether a bean reaches them or not.
        Map<String, MethodInfo> abstractMethods = new TreeMap<>();
        for (BeanInfo bean : beans) {
            ClassInfo clazz = bean.getTarget().get().asClass();
            // Virtual dispatch runs the most specific declaration of a method, so only that one may be a handler,
            // with its own @Delayed and threading annotations: an override without @Delayed leaves no handler, as
            // an override without @Observes leaves no CDI observer.
            Set<String> declared = new HashSet<>();
            while (clazz != null) {
                for (MethodInfo method : clazz.methods()) {
                    boolean overridden = overridden(method, declared);
                    if (!Modifier.isPrivate(method.flags()) && !Modifier.isStatic(method.flags())
                            && !visibilityBridge(method)) {
                        declared.add(signature(method));
                        declared.add(clazz.name().packagePrefix() + " " + signature(method));
                    }
                    AnnotationInstance delayed = annotations.getAnnotation(method, DELAYED);
                    // javac copies the annotations of a method to its bridge methods (a class implementing a generic
                    // interface, or a public class inheriting a public method of a package-private one): the bridge
                    // calls the method, it is not a second handler.
                    if (delayed == null || method.isSynthetic()) {
                        continue;
                    }
                    reached.add(key(method));
                    if (Modifier.isAbstract(method.flags())) {
                        abstractMethods.put(key(method), method);
                        continue;
                    }
                    if (overridden) {
                        continue;
                    }
                    int before = problems.size();
                    DelayedMethodBuildItem item = validate(bean, method, delayed, annotations, hierarchy, handlerOfQueue,
                            problems);
                    if (problems.size() == before) {
                        methods.produce(item.withInvoker(invokerFactory.createInvoker(bean, method)
                                .withInstanceLookup().build()));
                        if (item.getPayloadIndex() >= 0) {
                            reflection.produce(ReflectiveHierarchyBuildItem
                                    .builder(method.parameterType(item.getPayloadIndex()))
                                    .source(describe(method)).build());
                        }
                    }
                }
                clazz = superclass(clazz, hierarchy);
            }
        }
        // Only the classes of beans are walked: an interface method would never be a handler, even of a bean
        // implementing it.
        index.getAnnotations(DELAYED).stream()
                .filter(a -> a.target().kind() == AnnotationTarget.Kind.METHOD)
                .map(a -> a.target().asMethod())
                .filter(m -> Modifier.isInterface(m.declaringClass().flags()) && !m.isSynthetic())
                .sorted(Comparator.comparing(DelayedJobsProcessor::describe))
                .forEach(m -> problems.add(problem("A @Delayed method must be declared in a class, not in an interface",
                        m)));
        // CDI calls an interceptor or a decorator only around the methods of other beans, and makes no bean of it.
        index.getAnnotations(DELAYED).stream()
                .filter(a -> a.target().kind() == AnnotationTarget.Kind.METHOD)
                .map(a -> a.target().asMethod())
                .filter(m -> interceptorOrDecorator(m.declaringClass()) && !m.isSynthetic())
                .sorted(Comparator.comparing(DelayedJobsProcessor::describe))
                .forEach(m -> problems.add(problem("A @Delayed method must not be declared on an interceptor or a"
                        + " decorator: CDI makes no bean of it to run jobs on", m)));
        // An abstract method never runs, and the method that implements it is a handler only with @Delayed of its own.
        index.getAnnotations(DELAYED).stream()
                .filter(a -> a.target().kind() == AnnotationTarget.Kind.METHOD)
                .map(a -> a.target().asMethod())
                .filter(m -> !Modifier.isInterface(m.declaringClass().flags()) && Modifier.isAbstract(m.flags())
                        && !m.isSynthetic() && annotations.hasAnnotation(m, DELAYED))
                .forEach(m -> abstractMethods.put(key(m), m));
        abstractMethods.values().stream().sorted(Comparator.comparing(DelayedJobsProcessor::describe))
                .forEach(m -> problems.add(problem("A @Delayed method must not be abstract: put @Delayed on the method"
                        + " that implements it", m)));
        // A @Delayed method that no bean declares or inherits never runs. Left alone when a class that would run it
        // was left out of the beans on purpose (a build profile, an alternative not selected, exclude-types, @Vetoed):
        // a concrete class that declares it (it gets a scope of its own otherwise), or a subclass with annotations.
        index.getAnnotations(DELAYED).stream()
                .filter(a -> a.target().kind() == AnnotationTarget.Kind.METHOD)
                .map(a -> a.target().asMethod())
                .filter(m -> !Modifier.isInterface(m.declaringClass().flags()) && !m.isSynthetic()
                        && !Modifier.isAbstract(m.flags())
                        && annotations.hasAnnotation(m, DELAYED) && !reached.contains(key(m))
                        && !interceptorOrDecorator(m.declaringClass()) && nothingCouldRun(m.declaringClass(), index))
                .sorted(Comparator.comparing(DelayedJobsProcessor::describe))
                .forEach(m -> problems.add(problem(isInner(m.declaringClass())
                        ? "A @Delayed method must be declared in a top-level or static nested class: CDI makes no bean"
                                + " of an inner class"
                        : "A @Delayed method of an abstract class must be inherited by a bean, and no bean extends "
                                + m.declaringClass().name() + " (a subclass without a scope annotation is no bean):"
                                + " give the subclass that is to run it a scope such as @ApplicationScoped",
                        m)));
        if (!problems.isEmpty()) {
            errors.produce(new ValidationErrorBuildItem(problems));
        }
    }

    /** The handler found first for a queue. */
    private record QueueHandler(BeanInfo bean, MethodInfo method) {
    }

    private static DelayedMethodBuildItem validate(BeanInfo bean, MethodInfo method, AnnotationInstance delayed,
            TransformedAnnotationsBuildItem annotations, IndexView index, Map<String, QueueHandler> handlerOfQueue,
            List<Throwable> problems) {
        String queue = delayed.value().asString();
        if (!JobArguments.QUEUE_NAME.matcher(queue).matches()) {
            problems.add(problem("The queue name must match " + JobArguments.QUEUE_NAME.pattern() + ", was '" + queue
                    + "'" + (queue.startsWith("${") ? " (a queue name is fixed at build time: config expressions are"
                            + " read in cron and timeZone only)" : ""),
                    bean, method));
        } else {
            QueueHandler other = handlerOfQueue.putIfAbsent(queue, new QueueHandler(bean, method));
            if (other != null) {
                // Overloads read alike as Class#method(): then both are named with their parameter types.
                boolean overload = describe(other.method()).equals(describe(method))
                        && !key(other.method()).equals(key(method));
                String first = (overload ? key(other.method()) : describe(other.method()))
                        + inheritance(other.bean(), other.method());
                // One method that a class declares and its subclass inherits, both beans: the class may have become
                // one only for its @Delayed method.
                boolean declarerToo = key(other.method()).equals(key(method))
                        && !Modifier.isAbstract(method.declaringClass().flags());
                problems.add(problem("Queue '" + queue + "' already has a handler, " + first
                        + (overload ? " (this one is " + key(method) + ")" : "")
                        + "; a queue has exactly one @Delayed method"
                        + (declarerToo ? ", and " + method.declaringClass().name() + " is a bean too: a class that"
                                + " declares a @Delayed method is a bean of its own (a @Singleton when it has no scope"
                                + " annotation), make it abstract to have only its subclasses run it" : ""),
                        bean, method));
            }
        }
        if (Modifier.isPrivate(method.flags())) {
            problems.add(problem("A @Delayed method must not be private", bean, method));
        }
        if (Modifier.isStatic(method.flags())) {
            problems.add(problem("A @Delayed method must not be static", bean, method));
        }
        int payloadIndex = -1;
        int contextIndex = -1;
        List<Type> payloads = new ArrayList<>();
        int contexts = 0;
        for (int i = 0; i < method.parametersCount(); i++) {
            Type type = method.parameterType(i);
            if (type.name().equals(JOB_CONTEXT)) {
                contexts++;
                contextIndex = i;
            } else {
                payloads.add(type);
                payloadIndex = i;
                if (type.kind() == Type.Kind.PRIMITIVE) {
                    problems.add(problem("The payload parameter must not be a primitive type, was " + type
                            + "; use its wrapper class", bean, method));
                } else if (type.kind() == Type.Kind.TYPE_VARIABLE) {
                    problems.add(problem("The payload parameter must not be a type variable, was " + type, bean, method));
                } else if (hasTypeVariable(type)) {
                    problems.add(problem("The payload parameter's type must not contain a type variable, was " + type
                            + "; name the type it stands for", bean, method));
                } else if (innerClass(type, index)) {
                    problems.add(problem("The payload parameter must not be of a non-static inner class, was " + type
                            + "; make the class static (JSON cannot make an instance bound to an outer one)", bean,
                            method));
                }
            }
        }
        if (contexts > 1) {
            problems.add(problem("A @Delayed method may declare at most one JobContext parameter, found " + contexts,
                    bean, method));
        }
        if (payloads.size() > 1) {
            problems.add(problem("A @Delayed method may declare at most one payload parameter besides JobContext, found "
                    + payloads.size() + ": " + payloads.stream().map(DelayedJobsProcessor::typeName)
                            .collect(Collectors.joining(", ")),
                    bean, method));
        }
        boolean async = false;
        Type returnType = method.returnType();
        if (returnType.name().equals(UNI) || returnType.name().equals(COMPLETION_STAGE)) {
            async = true;
            if (returnType.kind() != Type.Kind.PARAMETERIZED_TYPE
                    || !returnType.asParameterizedType().arguments().get(0).name().equals(VOID)) {
                problems.add(problem("A @Delayed method must return void, Uni<Void> or CompletionStage<Void>, was "
                        + returnType, bean, method));
            }
        } else if (returnType.kind() != Type.Kind.VOID) {
            problems.add(problem("A @Delayed method must return void, Uni<Void> or CompletionStage<Void>, was "
                    + returnType, bean, method));
        }
        boolean blocking = annotations.hasAnnotation(method, BLOCKING);
        boolean nonBlocking = annotations.hasAnnotation(method, NON_BLOCKING);
        boolean virtual = annotations.hasAnnotation(method, RUN_ON_VIRTUAL_THREAD);
        if (nonBlocking && (virtual || blocking)) {
            problems.add(problem("A @Delayed method must not be annotated both @NonBlocking and "
                    + (virtual ? "@RunOnVirtualThread" : "@Blocking"), bean, method));
        }
        // A transaction cannot start on an event loop: @Transactional means a worker thread, as for Quarkus REST
        // endpoints, and asking for the event loop as well could never work.
        AnnotationInstance transactional = annotations.hasAnnotation(method, TRANSACTIONAL)
                ? annotations.getAnnotation(method, TRANSACTIONAL)
                : transactionalClass(bean, annotations, index);
        if (transactional != null && nonBlocking && startsTransaction(transactional)) {
            problems.add(problem("A @Transactional @Delayed method must not be annotated @NonBlocking: a transaction"
                    + " cannot start on the event loop", bean, method));
        }
        ExecutionModel model = virtual ? ExecutionModel.VIRTUAL_THREAD
                : nonBlocking ? ExecutionModel.EVENT_LOOP
                        : blocking || transactional != null ? ExecutionModel.BLOCKING
                                : async ? ExecutionModel.EVENT_LOOP : ExecutionModel.BLOCKING;
        String cron = stringValue(delayed, "cron");
        String timeZone = stringValue(delayed, "timeZone");
        AnnotationValue misfire = delayed.value("misfire");
        for (String rule : scheduleRules(cron, timeZone, Instant.now())) {
            problems.add(problem(rule, bean, method));
        }
        if (cron == null && (timeZone != null || misfire != null)) {
            problems.add(problem("timeZone and misfire apply to recurring handlers only: set cron too", bean, method));
        }
        return new DelayedMethodBuildItem(bean, method, queue, model, payloadIndex, contextIndex, null, cron, timeZone,
                misfire == null ? MisfirePolicy.FIRE_ONCE : MisfirePolicy.valueOf(misfire.asEnum()));
    }

    /**
     * The rules that the literal {@code cron} and {@code timeZone} of a static schedule break at {@code now}; config
     * expressions are left for run time. The expression must match some time after now in the zone of the annotation
     * (UTC when it has none), as {@code recurring(…)} reads it. When the zone comes from the configuration (or is
     * unknown), the expression is only refused if it matches no time after now in any zone: it is read in the zone
     * furthest behind UTC.
     */
    static List<String> scheduleRules(String cron, String timeZone, Instant now) {
        List<String> rules = new ArrayList<>();
        // Every zone's wall-clock time is at most 18 hours behind UTC.
        String zone = ZoneOffset.MIN.getId();
        if (timeZone == null) {
            zone = ZoneOffset.UTC.getId();
        } else if (!ConfigExpressions.isExpression(timeZone)) {
            try {
                zone = CronSchedule.zone(timeZone).getId();
            } catch (IllegalArgumentException e) {
                rules.add("timeZone" + e.getMessage().substring("zone".length()));
            }
        }
        if (cron != null && !ConfigExpressions.isExpression(cron)) {
            try {
                CronSchedule.of(cron, zone, MisfirePolicy.FIRE_ONCE, now);
            } catch (IllegalArgumentException e) {
                rules.add(
                        e.getMessage() + (ConfigExpressions.isOff(cron)
                                ? " (a schedule is switched off from the configuration only: cron ="
                                        + " \"${key}\" with key=" + cron.strip() + ")"
                                : ""));
            }
        }
        return rules;
    }

    private static String stringValue(AnnotationInstance annotation, String name) {
        AnnotationValue value = annotation.value(name);
        return value == null || value.asString().isEmpty() ? null : value.asString();
    }

    /**
     * The payload type as {@code PayloadCodec.reader} reads it: a class's binary name ({@code com.acme.Outer$Item},
     * as {@code Class.forName} wants it), its type arguments in {@code <>}, and {@code []} per array dimension.
     * {@code Type.toString()} is not: it keeps type annotations ({@code @Valid Foo}).
     */
    static String typeName(Type type) {
        return switch (type.kind()) {
            case CLASS, PRIMITIVE, VOID -> type.name().toString();
            case ARRAY -> typeName(type.asArrayType().elementType()) + "[]".repeat(type.asArrayType().deepDimensions());
            case PARAMETERIZED_TYPE -> type.name() + type.asParameterizedType().arguments().stream()
                    .map(DelayedJobsProcessor::typeName).collect(Collectors.joining(",", "<", ">"));
            case WILDCARD_TYPE -> typeName(type.asWildcardType().extendsBound());
            // Refused by validate(): named only in the messages of other problems.
            case TYPE_VARIABLE, TYPE_VARIABLE_REFERENCE, UNRESOLVED_TYPE_VARIABLE -> type.toString();
        };
    }

    /** Whether a type variable occurs in the type: the JSON would be read as its bound, whatever the bean makes it. */
    private static boolean hasTypeVariable(Type type) {
        return anyPart(type, part -> switch (part.kind()) {
            case TYPE_VARIABLE, TYPE_VARIABLE_REFERENCE, UNRESOLVED_TYPE_VARIABLE -> true;
            default -> false;
        });
    }

    /** Whether {@code type}, an array's element type or a type argument, is an inner class of the index. */
    private static boolean innerClass(Type type, IndexView index) {
        return anyPart(type, part -> (part.kind() == Type.Kind.CLASS || part.kind() == Type.Kind.PARAMETERIZED_TYPE)
                && isInner(part.name(), index));
    }

    /** Whether {@code type}, or a type within it (an array's element type, a type argument, a wildcard's bound), passes. */
    private static boolean anyPart(Type type, Predicate<Type> test) {
        if (test.test(type)) {
            return true;
        }
        return switch (type.kind()) {
            case ARRAY -> anyPart(type.asArrayType().elementType(), test);
            case PARAMETERIZED_TYPE -> type.asParameterizedType().arguments().stream()
                    .anyMatch(argument -> anyPart(argument, test));
            case WILDCARD_TYPE -> anyPart(type.asWildcardType().extendsBound(), test)
                    || type.asWildcardType().superBound() != null && anyPart(type.asWildcardType().superBound(), test);
            default -> false;
        };
    }

    private static String className(InvokerInfo invoker) {
        String descriptor = invoker.getClassDesc().descriptorString();
        return descriptor.substring(1, descriptor.length() - 1).replace('/', '.');
    }

    /**
     * Whether a subclass of the method's class declared a method that overrides it ({@code declared} holds their
     * signatures, alone and after their package): a private or static method is never overridden (it stays for its
     * own build error), a package-private one only from its own package.
     */
    private static boolean overridden(MethodInfo method, Set<String> declared) {
        short flags = method.flags();
        if (Modifier.isPrivate(flags) || Modifier.isStatic(flags)) {
            return false;
        }
        boolean packagePrivate = !Modifier.isPublic(flags) && !Modifier.isProtected(flags);
        return declared.contains(packagePrivate
                ? method.declaringClass().name().packagePrefix() + " " + signature(method)
                : signature(method));
    }

    /**
     * The classes of beans that an enabled alternative extends, as a {@code @Mock} of a test extends the bean it
     * replaces: the alternative inherits (or overrides) their {@code @Delayed} methods, and its queues keep one handler.
     */
    private static Set<DotName> replacedByAlternatives(List<BeanInfo> beans, IndexView hierarchy) {
        Set<DotName> replaced = new HashSet<>();
        for (BeanInfo bean : beans) {
            if (bean.isAlternative()) {
                for (ClassInfo clazz = superclass(bean.getTarget().get().asClass(),
                        hierarchy); clazz != null; clazz = superclass(clazz, hierarchy)) {
                    replaced.add(clazz.name());
                }
            }
        }
        return replaced;
    }

    private static ClassInfo superclass(ClassInfo clazz, IndexView hierarchy) {
        DotName superName = clazz.superName();
        return superName == null || superName.equals(DotName.OBJECT_NAME) ? null : hierarchy.getClassByName(superName);
    }

    /**
     * Whether a method is the bridge javac adds to a public class for a public method it inherits from a class that
     * is not public: it calls that method, with its own descriptor, so it overrides nothing. A generic or covariant
     * bridge calls a method of its class with another descriptor, the override it stands for. Only the bytecode tells
     * them apart: an overload of the same name and arity may sit beside either.
     */
    private static boolean visibilityBridge(MethodInfo method) {
        if (!method.isSynthetic() || (method.flags() & Opcodes.ACC_BRIDGE) == 0) {
            return false;
        }
        String className = method.declaringClass().name().toString();
        byte[] bytecode;
        try {
            bytecode = IoUtil.readClassAsBytes(Thread.currentThread().getContextClassLoader(), className);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the bytecode of " + className, e);
        }
        if (bytecode == null) {
            throw new IllegalStateException("Cannot find the bytecode of " + className);
        }
        String descriptor = method.descriptor();
        boolean[] callsItsOwnDescriptor = { false };
        new ClassReader(bytecode).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String signature, String[] exceptions) {
                if (!name.equals(method.name()) || !desc.equals(descriptor)) {
                    return null;
                }
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String called, String calledDesc,
                            boolean isInterface) {
                        callsItsOwnDescriptor[0] |= called.equals(method.name()) && calledDesc.equals(descriptor);
                    }
                };
            }
        }, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return callsItsOwnDescriptor[0];
    }

    /**
     * Whether no bean could ever run the {@code @Delayed} methods of a class that no bean of this build reaches: an
     * inner class, or an abstract class none of whose concrete subclasses carries an annotation (the scope that
     * would make it a bean was forgotten).
     */
    private static boolean nothingCouldRun(ClassInfo clazz, IndexView index) {
        if (isInner(clazz)) {
            return true;
        }
        if (!Modifier.isAbstract(clazz.flags())) {
            return false;
        }
        return index.getAllKnownSubclasses(clazz.name()).stream()
                .noneMatch(sub -> !Modifier.isAbstract(sub.flags()) && !isInner(sub)
                        && !sub.declaredAnnotations().isEmpty());
    }

    /**
     * Whether the named class is inner and Jackson would have to make its instances itself, which it cannot: one with a
     * deserializer or builder of its own ({@code @JsonDeserialize(using|builder)}) makes them as it likes.
     */
    private static boolean isInner(DotName name, IndexView index) {
        ClassInfo clazz = index.getClassByName(name);
        if (clazz == null || !isInner(clazz)) {
            return false;
        }
        AnnotationInstance deserialize = clazz.declaredAnnotation(JSON_DESERIALIZE);
        return deserialize == null || deserialize.value("using") == null && deserialize.value("builder") == null;
    }

    /**
     * The {@code @Transactional} of the bean's class or of its nearest superclass that has one, which is inherited (and
     * binds every method), else the one a stereotype of the bean carries; null when none has.
     */
    private static AnnotationInstance transactionalClass(BeanInfo bean, TransformedAnnotationsBuildItem annotations,
            IndexView index) {
        ClassInfo clazz = bean.getTarget().get().asClass();
        while (clazz != null) {
            if (annotations.hasAnnotation(clazz, TRANSACTIONAL)) {
                return annotations.getAnnotation(clazz, TRANSACTIONAL);
            }
            clazz = superclass(clazz, index);
        }
        for (StereotypeInfo stereotype : bean.getStereotypes()) {
            AnnotationInstance transactional = transactionalStereotype(stereotype.getTarget(), index, new HashSet<>());
            if (transactional != null) {
                return transactional;
            }
        }
        return null;
    }

    /** The {@code @Transactional} a stereotype declares, or one of the stereotypes it declares in turn; or null. */
    private static AnnotationInstance transactionalStereotype(ClassInfo stereotype, IndexView index, Set<DotName> seen) {
        if (stereotype == null || !seen.add(stereotype.name())) {
            return null;
        }
        AnnotationInstance transactional = stereotype.declaredAnnotation(TRANSACTIONAL);
        if (transactional != null) {
            return transactional;
        }
        for (AnnotationInstance annotation : stereotype.declaredAnnotations()) {
            ClassInfo parent = index.getClassByName(annotation.name());
            if (parent != null && parent.hasDeclaredAnnotation(STEREOTYPE)) {
                transactional = transactionalStereotype(parent, index, seen);
                if (transactional != null) {
                    return transactional;
                }
            }
        }
        return null;
    }

    /** Whether a {@code @Transactional} starts a transaction when none is active: REQUIRED (the default), REQUIRES_NEW. */
    private static boolean startsTransaction(AnnotationInstance transactional) {
        AnnotationValue type = transactional.value();
        return type == null || type.asEnum().equals("REQUIRED") || type.asEnum().equals("REQUIRES_NEW");
    }

    private static boolean interceptorOrDecorator(ClassInfo clazz) {
        return clazz.hasDeclaredAnnotation(INTERCEPTOR) || clazz.hasDeclaredAnnotation(DECORATOR);
    }

    /** A nested class that is not static, a local or an anonymous class: one whose instances need an outer one. */
    private static boolean isInner(ClassInfo clazz) {
        return clazz.nestingType() != ClassInfo.NestingType.TOP_LEVEL && !Modifier.isStatic(clazz.flags());
    }

    private static String key(MethodInfo method) {
        return method.declaringClass().name() + "#" + signature(method);
    }

    /** What makes a method override another: its name and erased parameter types, not its return type. */
    private static String signature(MethodInfo method) {
        return method.name() + method.parameterTypes().stream().map(t -> t.name().toString())
                .collect(Collectors.joining(",", "(", ")"));
    }

    static String describe(MethodInfo method) {
        return method.declaringClass().name() + "#" + method.name() + "()";
    }

    /** Every build-time problem reads {@code <rule>: @Delayed declared on <Class>#<method>()}. */
    static IllegalStateException problem(String rule, MethodInfo method) {
        return new IllegalStateException(rule + ": @Delayed declared on " + describe(method));
    }

    /** A problem of a handler of {@code bean}, followed by {@code , inherited by bean <Bean>} if it inherits it. */
    static IllegalStateException problem(String rule, BeanInfo bean, MethodInfo method) {
        String inheritance = inheritance(bean, method);
        return new IllegalStateException(rule + ": @Delayed declared on " + describe(method)
                + (inheritance.isEmpty() ? "" : "," + inheritance));
    }

    /**
     * {@code  inherited by bean <Bean>} when the method is declared on a superclass of the bean's class: beans
     * extending one class inherit the same method, so the method alone does not tell the user which beans to change.
     */
    private static String inheritance(BeanInfo bean, MethodInfo method) {
        return method.declaringClass().name().equals(bean.getBeanClass()) ? ""
                : " inherited by bean " + bean.getBeanClass();
    }

    @BuildStep
    @Record(ExecutionTime.RUNTIME_INIT)
    void checkConfig(DelayedJobsRecorder recorder, List<DelayedMethodBuildItem> methods) {
        recorder.checkConfig(methods.stream().map(DelayedMethodBuildItem::getQueue).collect(Collectors.toSet()));
    }

    @BuildStep
    @Record(ExecutionTime.RUNTIME_INIT)
    void register(DelayedJobsRecorder recorder, RecorderContext recorderContext, DelayedJobsBuildTimeConfig config,
            List<DelayedMethodBuildItem> methods, BuildProducer<SyntheticBeanBuildItem> syntheticBeans) {
        List<RuntimeValue<HandlerDefinition>> handlers = new ArrayList<>();
        methods.stream().sorted(Comparator.comparing(DelayedMethodBuildItem::getQueue)).forEach(m -> {
            MethodInfo method = m.getMethod();
            handlers.add(recorder.handler(recorderContext.newInstance(className(m.getInvoker())), m.getQueue(),
                    m.getMethodDescription(),
                    m.getPayloadIndex() < 0 ? null : typeName(method.parameterType(m.getPayloadIndex())),
                    m.getPayloadIndex(), m.getContextIndex(), method.parametersCount(), m.getExecutionModel(),
                    method.returnType().kind() != Type.Kind.VOID, m.getCron(), m.getTimeZone(), m.getMisfire()));
        });
        syntheticBeans.produce(SyntheticBeanBuildItem.configure(HandlerRegistry.class).scope(Singleton.class)
                .setRuntimeInit().supplier(recorder.registry(handlers)).done());

        String clientName = config.redisClientName().orElse(null);
        // The identifier names the client: dev mode reuses the classes of a bean whose identifier is unchanged, which
        // would keep the injection point of the client used before a live reload.
        SyntheticBeanBuildItem.ExtendedBeanConfigurator store = SyntheticBeanBuildItem.configure(JobStore.class)
                .identifier("redis-client-" + (clientName == null ? "<default>" : clientName))
                .scope(Singleton.class).setRuntimeInit().createWith(recorder.jobStore(clientName))
                .destroyer(BeanDestroyer.AutoCloseableDestroyer.class)
                .addInjectionPoint(ClassType.create(Vertx.class))
                .addInjectionPoint(ClassType.create(RedisClientOptions.class));
        if (clientName == null) {
            store.addInjectionPoint(ClassType.create(Redis.class));
        } else {
            store.addInjectionPoint(ClassType.create(Redis.class), AnnotationInstance.builder(RedisClientName.class)
                    .value(clientName).build());
        }
        syntheticBeans.produce(store.done());
    }
}
