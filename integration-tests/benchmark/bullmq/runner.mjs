// The workloads against BullMQ: delayed jobs added with their own jobId, a Worker with concurrency 16 whose
// processor does nothing. Completed jobs are removed (removeOnComplete), as the extension removes acknowledged ones.
// Usage: node runner.mjs --port P --out results.jsonl [--run N] [--workloads W1,W2,W3,W4 | idle] [--jobs 100000]
//        [--window 64] [--lateness-rate 1000] [--lateness-seconds 20] [--idle-seconds 45]
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';

const PHASE_LIMIT_MS = 5 * 60 * 1000;
const SETTLE_MS = 300;
const CONCURRENCY = 16;
const DRAIN_SPREAD_MS = 100;
const WARM_UP_ROUNDS = 2;

const args = parseArgs(process.argv.slice(2));
const port = Number(args.port);
const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
const workloads = new Set(String(args.workloads ?? 'W1,W2,W3,W4').toUpperCase().split(','));
const jobs = Number(args.jobs ?? 100000);
const windowSize = Number(args.window ?? 64);
const run = Number(args.run ?? 1);
let enqueueRate = 0;

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) {
      throw new Error(`Expected --name value pairs, got ${argv.join(' ')}`);
    }
    out[argv[i].slice(2)] = argv[i + 1];
  }
  return out;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const nowMicros = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

function payload(seq, due) {
  return { seq, customer: `customer-${String(seq % 10000000).padStart(7, '0')}`, kind: 'help-email', due,
    note: 'lorem ipsum dolor sit' };
}

/** The same counters the Java runners read: INFO cpu, memory, stats and commandstats. */
async function counters(meter) {
  const info = await meter.call('INFO', 'cpu', 'memory', 'stats', 'commandstats');
  let user = 0, sys = 0, memory = 0, commands = 0;
  const calls = {};
  for (const line of info.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    if (key === 'used_cpu_user') user = Number(value);
    else if (key === 'used_cpu_sys') sys = Number(value);
    else if (key === 'used_memory') memory = Number(value);
    else if (key === 'total_commands_processed') commands = Number(value);
    else if (key.startsWith('cmdstat_')) {
      const fields = Object.fromEntries(value.split(',').map((part) => part.split('=')));
      calls[key.slice(8)] = [Number(fields.calls), Number(fields.usec)];
    }
  }
  const client = process.cpuUsage(); // this Node process: producer and worker
  return { cpuMicros: Math.round((user + sys) * 1e6), usedMemory: memory, commands, calls,
    clientCpuMicros: client.user + client.system };
}

function callsSince(after, before) {
  const delta = {};
  for (const [command, [calls, usec]] of Object.entries(after.calls)) {
    const [thenCalls, thenUsec] = before.calls[command] ?? [0, 0];
    if (calls > thenCalls) delta[command] = { calls: calls - thenCalls, usec: usec - thenUsec };
  }
  return delta;
}

function write(workload, fields) {
  const record = { type: 'result', run, system: 'bullmq', workload, ...fields };
  appendFileSync(args.out, JSON.stringify(record) + '\n');
  const { calls, ...brief } = record;
  console.log(JSON.stringify(brief));
}

function phase(workload, n, wallMs, before, after, extra = {}) {
  const cpu = after.cpuMicros - before.cpuMicros;
  write(workload, { jobs: n, wallMs, rate: n / (wallMs / 1000), redisCpuMicros: cpu, cpuPerJobUs: cpu / n,
    redisCommands: after.commands - before.commands, clientCpuMicros: after.clientCpuMicros - before.clientCpuMicros,
    clientCpuPerJobUs: (after.clientCpuMicros - before.clientCpuMicros) / n, ...extra,
    calls: callsSince(after, before) });
}

/** Calls op(0..count-1) with at most `window` calls in flight. */
async function issue(count, window, op) {
  const deadline = Date.now() + PHASE_LIMIT_MS;
  let next = 0;
  async function lane() {
    while (next < count) {
      if (Date.now() > deadline) throw new Error(`Calls still going after ${PHASE_LIMIT_MS} ms`);
      const i = next++;
      await op(i);
    }
  }
  await Promise.all(Array.from({ length: Math.min(window, count) }, lane));
}

async function waitFor(what, condition, limitMs) {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what} after ${limitMs} ms`);
    await sleep(1);
  }
}

async function deleteKeys(meter, pattern) {
  let cursor = '0';
  for (let round = 0; round < 1000000; round++) {
    const [nextCursor, keys] = await meter.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length > 0) await meter.unlink(...keys);
    cursor = nextCursor;
    if (cursor === '0') return;
  }
  throw new Error(`SCAN did not finish over ${pattern}`);
}

/** The jobs of a phase that reached a handler, by their payload's seq (0 to n - 1): deliveries and distinct jobs,
 * so that a job delivered twice cannot stand in for one never delivered. */
class Seen {
  constructor(n) {
    this.bits = new Uint8Array(n);
    this.deliveries = 0;
    this.distinct = 0;
  }

  record(seq) {
    this.deliveries++;
    if (seq >= 0 && seq < this.bits.length && this.bits[seq] === 0) {
      this.bits[seq] = 1;
      this.distinct++;
    }
  }

  get duplicates() {
    return this.deliveries - this.distinct;
  }
}

/** Adds W1's kind of jobs: n due over the minute after the next one (none comes due while they are added, as for
 * every system), with jobIds idPrefix + i. */
async function addOverNextMinute(queue, idPrefix, n) {
  const start = Date.now() + 60000;
  await issue(n, windowSize, (i) => {
    const due = start + Math.floor(60000 * i / n);
    return queue.add('job', payload(i, due), { jobId: `${idPrefix}${i}`, delay: Math.max(1, due - Date.now()),
      removeOnComplete: true });
  });
}

/** A ready queue with a worker of CONCURRENCY handlers that do nothing; completed() counts the distinct jobs (of
 * seq 0 to n - 1) they completed, duplicates() the completions beyond the first of a job. */
async function workedQueue(name, n) {
  const queue = new Queue(name, { connection });
  const worker = new Worker(name, async () => {}, { connection, concurrency: CONCURRENCY });
  const seen = new Seen(n);
  worker.on('completed', (job) => { seen.record(job.data.seq); });
  await queue.waitUntilReady();
  await worker.waitUntilReady();
  return { queue, completed: () => seen.distinct, duplicates: () => seen.duplicates,
    close: async () => { await worker.close(); await queue.close(); } };
}

/** W1: delayed jobs due over the next 60 s; no worker. */
async function enqueue(meter) {
  const n = jobs;
  const queue = new Queue('bq-enqueue', { connection });
  await queue.waitUntilReady();
  await sleep(SETTLE_MS);
  const before = await counters(meter);
  const t0 = performance.now();
  await addOverNextMinute(queue, 'w1-', n);
  const wall = performance.now() - t0;
  const after = await counters(meter);
  enqueueRate = n / (wall / 1000);
  phase('W1', n, wall, before, after, { window: windowSize });
  await queue.close();
  await deleteKeys(meter, 'bull:bq-enqueue:*');
}

/** Unrecorded: WARM_UP_ROUNDS rounds, each adding jobs of W1's kind (due over the next 60 s, to a queue without
 * worker, then deleted), then jobs due at once, added and completed, so that V8 has compiled those paths before
 * anything is measured (every system of the benchmark gets the same warm-up). */
async function warmUp(meter) {
  const n = jobs;
  for (let round = 0; round < WARM_UP_ROUNDS; round++) {
    const unworked = new Queue('bq-warm-up-enqueue', { connection });
    await unworked.waitUntilReady();
    await addOverNextMinute(unworked, 'warm-up-', n);
    await unworked.close();
    await deleteKeys(meter, 'bull:bq-warm-up-enqueue:*');

    const { queue, completed, close } = await workedQueue('bq-warm-up', n);
    await issue(n, windowSize, (i) => queue.add('job', payload(i, Date.now()), { jobId: `warm-up-${i}`, delay: 1,
      removeOnComplete: true }));
    await waitFor(`all ${n} warm-up jobs completed`, () => completed() >= n, PHASE_LIMIT_MS);
    await close();
    await deleteKeys(meter, 'bull:bq-warm-up:*');
  }
}

/** W2 and W4: jobs due within 100 ms from a moment a little ahead, in the order they are added; memory while
 * pending, then the time from that moment until the last completion. */
async function drain(meter) {
  const n = jobs;
  const { queue, completed, duplicates, close } = await workedQueue('bq-drain', n);
  const rate = enqueueRate > 0 ? enqueueRate : 5000;
  const marginMs = Math.round(1.5 * n / rate * 1000) + 2000;
  await sleep(SETTLE_MS);
  const empty = await counters(meter);
  const loadStart = Date.now();
  const first = loadStart + marginMs;
  await issue(n, windowSize, (i) => {
    const due = first + Math.floor(DRAIN_SPREAD_MS * i / n);
    return queue.add('job', payload(i, due), { jobId: `w2-${i}`, delay: Math.max(1, due - Date.now()),
      removeOnComplete: true });
  });
  const loadEnd = Date.now();
  await sleep(SETTLE_MS);
  const loaded = await counters(meter);
  const bytes = loaded.usedMemory - empty.usedMemory;
  write('W4', { jobs: n, usedMemoryDelta: bytes, bytesPerJob: bytes / n });
  const overran = Date.now() + 100 > first;
  await sleep(first - 50 - Date.now());
  const before = await counters(meter);
  await sleep(first - Date.now());
  const t0 = performance.now();
  await waitFor(`all ${n} jobs completed`, () => completed() >= n, PHASE_LIMIT_MS);
  const wall = performance.now() - t0;
  const after = await counters(meter);
  phase('W2', n, wall, before, after, { loadOverran: overran, loadRate: n / ((loadEnd - loadStart) / 1000),
    duplicates: duplicates() });
  await close();
  await deleteKeys(meter, 'bull:bq-drain:*');
}

/** W3: a steady stream of jobs each due 2 s after it was added; how late does each start? */
async function lateness(meter) {
  const perSecond = Number(args['lateness-rate'] ?? 1000);
  const seconds = Number(args['lateness-seconds'] ?? 20);
  const n = perSecond * seconds;
  const delay = 2000;
  const queue = new Queue('bq-lateness', { connection });
  const late = [];
  const seen = new Seen(n);
  const worker = new Worker('bq-lateness', async (job) => {
    late.push(nowMicros() - job.data.due * 1000); // the due time the producer asked for, as every runner measures
    seen.record(job.data.seq);
  }, { connection, concurrency: CONCURRENCY });
  await queue.waitUntilReady();
  await worker.waitUntilReady();
  await sleep(SETTLE_MS);
  const before = await counters(meter);
  const t0 = performance.now();
  let sent = 0;
  let failures = 0;
  let inFlight = 0;
  const deadline = t0 + (seconds + 10) * 1000;
  while (sent < n && performance.now() < deadline) {
    const target = Math.min(n, Math.floor((performance.now() - t0) * perSecond / 1000));
    while (sent < target && inFlight < perSecond) {
      const seq = sent++;
      inFlight++;
      queue.add('job', payload(seq, Date.now() + delay), { jobId: `w3-${seq}`, delay, removeOnComplete: true })
        .catch(() => { failures++; })
        .finally(() => { inFlight--; });
    }
    await sleep(1);
  }
  const scheduled = sent;
  await waitFor(`all ${scheduled} jobs started`, () => seen.distinct >= scheduled, delay + 15000);
  const wall = performance.now() - t0;
  const after = await counters(meter);
  const sorted = Float64Array.from(late).sort();
  const pct = (p) => (sorted.length === 0 ? 0 : sorted[Math.max(0, Math.ceil(p / 100 * sorted.length) - 1)]);
  phase('W3', n, wall, before, after, { expected: n, scheduled, scheduleFailures: failures, received: seen.distinct,
    duplicates: seen.duplicates,
    p50Ms: pct(50) / 1000, p99Ms: pct(99) / 1000, maxMs: (sorted.at(-1) ?? 0) / 1000, minMs: (sorted[0] ?? 0) / 1000 });
  await worker.close();
  await queue.close();
  await deleteKeys(meter, 'bull:bq-lateness:*');
}

/** W5: one Worker on one queue, idle while it is measured from outside. */
async function idle() {
  const worker = new Worker('bq-idle', async () => {}, { connection, concurrency: CONCURRENCY });
  await worker.waitUntilReady();
  console.log('BENCH-IDLE-READY');
  await sleep(Number(args['idle-seconds'] ?? 45) * 1000);
  await worker.close();
}

async function main() {
  if (workloads.has('IDLE')) {
    await idle();
    return;
  }
  const meter = new IORedis({ host: '127.0.0.1', port });
  try {
    if (['W1', 'W2', 'W3', 'W4'].some((w) => workloads.has(w))) await warmUp(meter);
    if (workloads.has('W1')) await enqueue(meter);
    if (workloads.has('W2') || workloads.has('W4')) await drain(meter);
    if (workloads.has('W3')) await lateness(meter);
  } finally {
    meter.disconnect();
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
