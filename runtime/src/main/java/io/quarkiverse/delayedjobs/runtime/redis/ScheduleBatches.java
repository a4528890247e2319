package io.quarkiverse.delayedjobs.runtime.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;

import io.quarkiverse.delayedjobs.ScheduleResult;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Scheduled;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.redis.client.Response;

/**
 * Coalesces the schedule calls of one shard: while a call is under way, the jobs scheduled meanwhile wait and then go
 * together in the next call, up to {@value #MAX_JOBS_PER_CALL} at a time. A lone producer pays one round trip per
 * job as before; many concurrent producers pay the script call once per batch.
 */
final class ScheduleBatches {

    static final int MAX_JOBS_PER_CALL = 64;

    /** One job to store: the values schedule.lua takes for it, and who waits for its result. */
    record Job(String id, String payload, long dueOrDelayMs, boolean relative, String policy, int bucket,
            Promise<Scheduled> result) {
    }

    /** The batches of one shard. */
    static final class Shard {

        private final JobStore store;
        private final QueueKeys keys;
        private final int shard;
        private final Queue<Job> waiting = new ArrayDeque<>();
        private boolean underWay;

        Shard(JobStore store, QueueKeys keys, int shard) {
            this.store = store;
            this.keys = keys;
            this.shard = shard;
        }

        Future<Scheduled> add(Job job) {
            List<Job> batch;
            synchronized (this) {
                waiting.add(job);
                if (underWay) {
                    return job.result().future();
                }
                underWay = true;
                batch = take();
            }
            send(batch);
            return job.result().future();
        }

        /** Called with the lock held. */
        private List<Job> take() {
            List<Job> batch = new ArrayList<>(Math.min(waiting.size(), MAX_JOBS_PER_CALL));
            while (!waiting.isEmpty() && batch.size() < MAX_JOBS_PER_CALL) {
                batch.add(waiting.poll());
            }
            return batch;
        }

        private void send(List<Job> batch) {
            List<Object> args = new ArrayList<>(2 + batch.size() * 6);
            args.add(keys.wakeChannel());
            args.add(shard);
            for (Job job : batch) {
                args.add(job.id());
                args.add(job.payload());
                args.add(job.dueOrDelayMs());
                args.add(job.relative() ? "in" : "at");
                args.add(job.policy());
                args.add(job.bucket());
            }
            store.run(Script.SCHEDULE, keys.shard(shard), args).onComplete(ar -> {
                for (int i = 0; i < batch.size(); i++) {
                    if (ar.failed()) {
                        batch.get(i).result().fail(ar.cause());
                    } else {
                        Response r = ar.result();
                        batch.get(i).result().complete(new Scheduled(ScheduleResult.valueOf(r.get(2 * i).toString()),
                                r.get(2 * i + 1).toLong()));
                    }
                }
                List<Job> next;
                synchronized (this) {
                    next = take();
                    underWay = !next.isEmpty();
                }
                if (!next.isEmpty()) {
                    send(next);
                }
            });
        }
    }
}
