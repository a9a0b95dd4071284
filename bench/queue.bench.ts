// Queue benchmark: enqueue-to-start latency and jobs/s of the real queue path (ReconcileQueues →
// Redis → ReconcileWorkers, no-op handler), against redis-benchmark's plain SET/GET on the same
// Redis in the same run, so the queue's overhead shows as a ratio.
//   npx tsx bench/queue.bench.ts [--jobs 5000] [--latency-samples 500] [--concurrency 50]
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { run, startRedis } from '@tidemark/testing';
import { ReconcileQueues, ReconcileWorkers } from '@tidemark/queue';
import type { ReconcileJob } from '@tidemark/contracts';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '5000' },
    'latency-samples': { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '50' },
  },
});
const jobs = Number(values.jobs);
const latencySamples = Number(values['latency-samples']);
const concurrency = Number(values.concurrency);

interface RedisBaseline { rps: number; p50Ms: number }

/** redisBaseline runs redis-benchmark's SET and GET with as many clients as the queue has workers. */
async function redisBaseline(port: number, host: string): Promise<Record<'SET' | 'GET', RedisBaseline>> {
  const csv = await run('redis-benchmark', ['-h', host, '-p', String(port), '-t', 'set,get', '-n', '100000', '-c', String(concurrency), '-q', '--csv']);
  const result: Partial<Record<'SET' | 'GET', RedisBaseline>> = {};
  for (const line of csv.trim().split('\n').slice(1)) {
    const [test, rps, , , p50] = line.split(',').map((cell) => cell.replace(/"/g, ''));
    if (test === 'SET' || test === 'GET') result[test] = { rps: Number(rps), p50Ms: Number(p50) };
  }
  if (!result.SET || !result.GET) throw new Error(`could not read redis-benchmark output:\n${csv}`);
  return result as Record<'SET' | 'GET', RedisBaseline>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

function job(objectKey: string, n: number): ReconcileJob {
  return { source: 'bench', revision: n.toString(16).padStart(40, '0'), cluster: 'bench', objectKey, reason: 'git-change' };
}

const redis = await startRedis();
const url = new URL(redis.url);
const prefix = `bench-${randomUUID().slice(0, 8)}`;
const queues = new ReconcileQueues({ connection: redis.url, prefix, clusters: ['bench'] });
const workers = new ReconcileWorkers({ connection: redis.url, prefix, clusters: [{ name: 'bench', concurrency }] });
const enqueuedAt = new Map<string, number>();
const latencies: number[] = [];
let finished = 0;
let allDone: () => void = () => undefined;

try {
  const baseline = await redisBaseline(redis.port, url.hostname);
  await queues.start();
  await workers.start(async (payload) => {
    const sent = enqueuedAt.get(payload.objectKey);
    if (sent !== undefined) latencies.push(performance.now() - sent);
    finished += 1;
    if (finished === jobs) allDone();
    return { kind: 'done' };
  });

  // Latency: one job at a time on an idle queue, so each measures the path, not a backlog.
  for (let index = 0; index < latencySamples; index += 1) {
    const key = `core/ConfigMap/latency/cm-${index}`;
    const started = latencies.length;
    enqueuedAt.set(key, performance.now());
    await queues.enqueue(job(key, index + 1));
    while (latencies.length === started) await new Promise((resolve) => setImmediate(resolve));
  }
  enqueuedAt.clear();
  latencies.sort((a, b) => a - b);

  // Throughput: `jobs` distinct objects, enqueued by `concurrency` producers at once.
  finished = 0;
  const done = new Promise<void>((resolve) => { allDone = resolve; });
  const throughputStart = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < jobs) {
      const index = next++;
      await queues.enqueue(job(`core/ConfigMap/throughput/cm-${index}`, index + 1));
    }
  }));
  await done;
  const seconds = (performance.now() - throughputStart) / 1000;
  const jobsPerSecond = jobs / seconds;

  const result = {
    bench: 'queue',
    jobs,
    concurrency,
    jobsPerSecond: Math.round(jobsPerSecond),
    enqueueToStartP50Ms: Number(percentile(latencies, 0.5).toFixed(3)),
    enqueueToStartP99Ms: Number(percentile(latencies, 0.99).toFixed(3)),
    redisSetRps: baseline.SET.rps,
    redisGetRps: baseline.GET.rps,
    redisSetP50Ms: baseline.SET.p50Ms,
    jobsPerSecondVsSet: Number((jobsPerSecond / baseline.SET.rps).toFixed(4)),
    setsPerJob: Number((baseline.SET.rps / jobsPerSecond).toFixed(1)),
    latencyP50VsSetP50: Number((percentile(latencies, 0.5) / baseline.SET.p50Ms).toFixed(1)),
  };
  process.stdout.write([
    `redis-benchmark (${concurrency} clients): SET ${baseline.SET.rps}/s, GET ${baseline.GET.rps}/s, SET p50 ${baseline.SET.p50Ms} ms`,
    `queue, no-op handler: ${result.jobsPerSecond} jobs/s (${jobs} jobs, concurrency ${concurrency}); enqueue-to-start p50 ${result.enqueueToStartP50Ms} ms, p99 ${result.enqueueToStartP99Ms} ms (${latencySamples} samples)`,
    `ratio: one job costs the throughput of ${result.setsPerJob} SETs (jobs/s = ${(result.jobsPerSecondVsSet * 100).toFixed(2)}% of SET/s); enqueue-to-start p50 = ${result.latencyP50VsSetP50}× a SET's p50`,
    JSON.stringify(result),
  ].join('\n') + '\n');
} finally {
  await workers.close();
  await queues.close();
  const cleanup = new Redis(redis.url);
  const stale = await cleanup.keys(`${prefix}:*`);
  if (stale.length > 0) await cleanup.del(...stale);
  cleanup.disconnect();
  await redis.stop();
}
