package io.quarkiverse.delayedjobs.benchmark;

import java.time.Duration;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.ReactiveDelayedScheduler;
import io.quarkiverse.delayedjobs.benchmark.measure.Phases;
import io.quarkiverse.delayedjobs.benchmark.measure.Results;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import io.vertx.core.Vertx;

/**
 * The benchmark application: a plain Quarkus application with one {@code @Delayed} handler, which runs the
 * workloads asked on its command line and exits. See run.sh for how it is started.
 */
@QuarkusMain
public class BenchmarkMain implements QuarkusApplication {

    private static final Logger LOG = Logger.getLogger("bench");
    /** run.sh waits for this line before it measures the idle instance. */
    static final String IDLE_READY = "BENCH-IDLE-READY";
    /** The name of this extension in the results. */
    private static final String SYSTEM = "quarkus";

    @Inject
    ReactiveDelayedScheduler reactive;

    @Inject
    DelayedScheduler scheduler;

    @Inject
    Tally tally;

    @Inject
    Vertx vertx;

    @Inject
    ObjectMapper mapper;

    @ConfigProperty(name = "quarkus.redis.hosts")
    String redisUrl;

    @ConfigProperty(name = "quarkus.delayed-jobs.key-prefix")
    String keyPrefix;

    @ConfigProperty(name = "quarkus.delayed-jobs.shards")
    int shards;

    @Override
    public int run(String... args) {
        Options options = Options.parse(args);
        if (options.has("IDLE")) {
            // The engine started its worker for the one queue at startup; W5 is measured from outside meanwhile.
            System.out.println(IDLE_READY);
            System.out.flush();
            Phases.pause(Duration.ofSeconds(options.idleSeconds()));
            return 0;
        }
        try (RedisMeter meter = new RedisMeter(vertx, redisUrl)) {
            Workloads workloads = new Workloads(reactive, scheduler, tally, meter,
                    new Results(options.out(), options.run(), SYSTEM),
                    mapper, options, keyPrefix, shards);
            if (options.has("W1") || options.has("W2") || options.has("W3") || options.has("W3L")
                    || options.has("W4")) {
                LOG.info("Warm-up (not measured)");
                // A process that runs W3L alone has its linger: jobs of W1's kind would wait in it.
                workloads.warmUp(options.has("W1") || options.has("W2") || options.has("W4"));
            }
            if (options.has("W1")) {
                LOG.info("W1 enqueue");
                workloads.enqueue();
            }
            if (options.has("W2") || options.has("W4")) {
                LOG.info("W2 drain (and W4 memory while loading)");
                workloads.drain();
            }
            if (options.has("W3")) {
                LOG.info("W3 lateness");
                workloads.lateness("W3");
            }
            if (options.has("W3L")) {
                LOG.info("W3 lateness with a schedule linger");
                workloads.lateness("W3L");
            }
            if (options.has("W6")) {
                LOG.info("W6 scale");
                workloads.scale();
            }
        }
        return 0;
    }
}
