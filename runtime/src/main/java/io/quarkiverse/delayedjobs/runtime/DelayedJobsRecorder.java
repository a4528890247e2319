package io.quarkiverse.delayedjobs.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import jakarta.enterprise.invoke.Invoker;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import io.quarkiverse.delayedjobs.MisfirePolicy;
import io.quarkiverse.delayedjobs.runtime.config.ConfigCheck;
import io.quarkiverse.delayedjobs.runtime.config.DelayedJobsRuntimeConfig;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.RedisClientOptions;
import io.quarkus.arc.SyntheticCreationalContext;
import io.quarkus.redis.client.RedisClientName;
import io.quarkus.redis.runtime.client.config.RedisConfig;
import io.quarkus.runtime.RuntimeValue;
import io.quarkus.runtime.annotations.Recorder;
import io.smallrye.config.SmallRyeConfig;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Redis;

@Recorder
public class DelayedJobsRecorder {

    private static final Logger LOG = Logger.getLogger(DelayedJobsRecorder.class);

    private final RuntimeValue<DelayedJobsRuntimeConfig> config;

    public DelayedJobsRecorder(RuntimeValue<DelayedJobsRuntimeConfig> config) {
        this.config = config;
    }

    /** Stops the application at startup on a setting out of its range, before the engine's beans exist. */
    public void checkConfig(Set<String> handledQueues) {
        SmallRyeConfig all = ConfigProvider.getConfig().unwrap(SmallRyeConfig.class);
        ConfigCheck.checkQueueSpellings(all.getPropertyNames(), all.getProfiles());
        ConfigCheck.check(config.getValue());
        ConfigCheck.unhandledQueueSettings(config.getValue(), handledQueues).forEach(LOG::warn);
    }

    /** Creates the job store on the Redis client the deployment step declared as injection point. */
    public Function<SyntheticCreationalContext<JobStore>, JobStore> jobStore(String redisClientName) {
        return context -> {
            // Looked up so that Quarkus creates the client, and hands its options to RedisClientOptions: the store
            // opens clients of its own with them.
            if (redisClientName == null) {
                context.getInjectedReference(Redis.class);
            } else {
                context.getInjectedReference(Redis.class, RedisClientName.Literal.of(redisClientName));
            }
            RedisClientOptions options = context.getInjectedReference(RedisClientOptions.class);
            String name = redisClientName == null ? RedisConfig.DEFAULT_CLIENT_NAME : redisClientName;
            return new JobStore(() -> options.copyOf(name), context.getInjectedReference(Vertx.class),
                    config.getValue(), options.isCluster(name));
        };
    }

    public RuntimeValue<HandlerDefinition> handler(RuntimeValue<Invoker<Object, Object>> invoker, String queue,
            String method, String payloadType, int payloadIndex, int contextIndex, int parameterCount,
            ExecutionModel executionModel, boolean asynchronous, String cron, String timeZone, MisfirePolicy misfire) {
        return new RuntimeValue<>(new HandlerDefinition(queue, method, invoker.getValue(), payloadType, payloadIndex,
                contextIndex, parameterCount, executionModel, asynchronous, cron, timeZone, misfire));
    }

    public Supplier<HandlerRegistry> registry(List<RuntimeValue<HandlerDefinition>> handlers) {
        List<HandlerDefinition> definitions = new ArrayList<>(handlers.size());
        for (RuntimeValue<HandlerDefinition> handler : handlers) {
            definitions.add(handler.getValue());
        }
        HandlerRegistry registry = new HandlerRegistry(List.copyOf(definitions));
        return () -> registry;
    }
}
