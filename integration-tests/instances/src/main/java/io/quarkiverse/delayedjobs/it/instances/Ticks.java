package io.quarkiverse.delayedjobs.it.instances;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.quarkiverse.delayedjobs.Delayed;
import io.quarkiverse.delayedjobs.JobContext;
import io.quarkiverse.delayedjobs.MisfirePolicy;
import io.quarkus.redis.datasource.RedisDataSource;

/**
 * A schedule that fires every second; each delivery is written to the Redis list {@code ticks} as
 * {@code dueMs instance attempt}, so that the test sees what every instance did. Missed occurrences are caught up, so
 * that a slow start of the machine cannot hide an occurrence.
 */
public class Ticks {

    private final RedisDataSource redis;
    private final String instance;

    public Ticks(RedisDataSource redis, @ConfigProperty(name = "instance.name") String instance) {
        this.redis = redis;
        this.instance = instance;
    }

    @Delayed(value = "tick", cron = "* * * * * ?", misfire = MisfirePolicy.CATCH_UP)
    void tick(JobContext context) {
        redis.list(String.class).rpush("ticks",
                context.dueAt().toEpochMilli() + " " + instance + " " + context.attempt());
    }
}
