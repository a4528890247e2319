package io.quarkiverse.delayedjobs.test;

import static io.quarkiverse.delayedjobs.test.VertxFutures.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.quarkiverse.delayedjobs.DelayedScheduler;
import io.quarkiverse.delayedjobs.runtime.config.QueueSettings;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.ClaimBatch;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.Claimed;
import io.quarkiverse.delayedjobs.runtime.redis.JobStore.RetryOutcome;
import io.quarkiverse.delayedjobs.runtime.redis.QueueKeys;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A claim tells its worker when the shard's next time is one to claim at rather than ahead of: a claim that read the
 * shard up to its reach ahead, with room left, and did not take that time's job (a retry, which is never claimed
 * ahead). Its worker then claims the shard once that job is due, not a round trip after round trip before. A claim
 * filled by jobs due now, or by as many jobs ahead as it may take, never read that far and tells nothing. Plays a worker
 * on the job store, on one-shard queues nobody else works on; each case has a queue of its own.
 */
public class ClaimDueOnlyTest {

    @RegisterExtension
    static final QuarkusUnitTest test = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(RedisTestServer.class, VertxFutures.class))
            .overrideConfigKey("quarkus.redis.hosts", RedisTestServer.sharedUrl())
            .overrideConfigKey("quarkus.delayed-jobs.key-prefix", "claim-due-only")
            .overrideConfigKey("quarkus.delayed-jobs.shards", "1");

    static final QueueSettings SETTINGS = new QueueSettings(1, Duration.ofSeconds(30), 32, 16, Duration.ZERO,
            Duration.ZERO, 10, Duration.ofSeconds(1), Duration.ofHours(1));
    /** How far ahead the claims below reach: far beyond the jobs 'soon', which they could take. */
    static final long REACH_MS = 60_000;

    @Inject
    DelayedScheduler scheduler;

    @Inject
    JobStore store;

    @Test
    void aClaimWithRoomAheadThatLeftARetryInReachSaysSo() throws Exception {
        QueueKeys keys = withRetryIn("room-ahead", Duration.ofSeconds(30));
        ClaimBatch batch = claim(keys, 4, 2);
        assertEquals(List.of(), batch.jobs());
        assertTrue(batch.nextDueOnly(), "the retry is to be claimed at its time");
    }

    /** All handlers busy: a claim of jobs ahead only reads the shard from its head up to its reach. */
    @Test
    void aClaimOfJobsAheadOnlyThatLeftARetryInReachSaysSo() throws Exception {
        QueueKeys keys = withRetryIn("ahead-only", Duration.ofSeconds(30));
        assertTrue(claim(keys, 0, 2).nextDueOnly());
    }

    @Test
    void aPlainJobAfterTheJobsClaimedAheadIsToBeClaimedAheadToo() throws Exception {
        QueueKeys keys = keys("plain-ahead");
        for (int i = 0; i < 3; i++) {
            scheduler.schedule("plain-ahead", "soon-" + i, "p", Duration.ofSeconds(20 + i));
        }
        ClaimBatch batch = claim(keys, 4, 2);
        assertEquals(2, batch.jobs().size());
        assertFalse(batch.nextDueOnly(), "a claim that took as many ahead as it may did not look further");
        assertEquals(1, claim(keys, 4, 2).jobs().size());
    }

    @Test
    void aClaimFilledByJobsDueNowDidNotLookAhead() throws Exception {
        QueueKeys keys = keys("filled");
        for (int i = 0; i < 2; i++) {
            scheduler.schedule("filled", "now-" + i, "p", Duration.ZERO);
        }
        scheduler.schedule("filled", "soon", "p", Duration.ofSeconds(20));
        ClaimBatch batch = claim(keys, 2, 2);
        assertEquals(2, batch.jobs().size());
        assertFalse(batch.nextDueOnly(), "the job due soon is to be claimed ahead");
        assertEquals(List.of("soon"), claim(keys, 2, 2).jobs().stream().map(Claimed::id).toList());
    }

    @Test
    void aRetryBeyondTheReachTellsNothing() throws Exception {
        QueueKeys keys = withRetryIn("beyond", Duration.ofMinutes(5));
        assertFalse(claim(keys, 4, 2).nextDueOnly());
    }

    @Test
    void aClaimThatDoesNotClaimAheadTellsNothing() throws Exception {
        QueueKeys keys = withRetryIn("no-ahead", Duration.ofSeconds(30));
        assertFalse(get(store.claim(keys, 0, 4, 0, 0, SETTINGS, List.of())).nextDueOnly());
    }

    private QueueKeys keys(String queue) throws Exception {
        return get(store.queue(queue));
    }

    /** A queue whose only job failed and waits for its retry, {@code in} from now. */
    private QueueKeys withRetryIn(String queue, Duration in) throws Exception {
        QueueKeys keys = keys(queue);
        scheduler.schedule(queue, "failed", "p", Duration.ZERO);
        Claimed job = claim(keys, 1, 0).jobs().get(0);
        assertEquals(RetryOutcome.RETRIED, get(store.retry(keys, 0, job.id(), job.token(), in.toMillis(), "boom", false,
                null, SETTINGS)));
        return keys;
    }

    /** Claims up to {@code limit} jobs due now and {@code aheadLimit} due within {@link #REACH_MS}. */
    private ClaimBatch claim(QueueKeys keys, int limit, int aheadLimit) throws Exception {
        return get(store.claim(keys, 0, limit, REACH_MS, aheadLimit, SETTINGS, List.of()));
    }
}
