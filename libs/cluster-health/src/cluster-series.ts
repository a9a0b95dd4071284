import { randomUUID } from 'node:crypto';
import { RedisLease, newestClusterSample, type ClusterSample, type Logger, type RecordKeys } from '@tidemark/contracts';
import type { RedisClient } from '@tidemark/contracts';
import { appendClusterSample } from './health-records';

/** SampledFigures is the part of a cluster's queue figures (from @tidemark/queue) a sample reads. */
export interface SampledFigures {
  cluster: string;
  depth: { waiting: number; prioritized: number; active: number; delayed: number };
  processingMs: { count: number; p50: number; p99: number };
  failingObjects: number;
  /** The queue's counter of failed runs. */
  failedRuns: number;
}

export interface ClusterSeriesOptions {
  /** The queue figures the reconciler already keeps in Redis. */
  queues: { figures(): Promise<SampledFigures[]> };
  redis: RedisClient;
  /** The deployment's record keys (the status store's). */
  keys: RecordKeys;
  /** @defaultValue 15000 */
  intervalMs?: number;
  /** Samples kept per cluster: an hour at the default interval. @defaultValue 240 */
  keep?: number;
  log?: Logger;
}

/**
 * sampleOf turns one cluster's queue figures into a sample. Its failed runs are the counter's
 * growth since the previous sample; with no previous count (the first sample) there is no
 * interval to count in, and a counter lower than before (Redis lost it) counts from zero.
 */
export function sampleOf(figures: SampledFigures, at: Date, previous?: ClusterSample): ClusterSample {
  const { depth, processingMs } = figures;
  const sample: ClusterSample = { at: at.toISOString(), queued: depth.waiting + depth.prioritized + depth.active + depth.delayed, failing: figures.failingObjects };
  if (processingMs.count > 0) Object.assign(sample, { runP50: Math.round(processingMs.p50), runP99: Math.round(processingMs.p99) });
  const before = previous?.failedRunsTotal;
  if (before !== undefined) sample.failedRuns = figures.failedRuns >= before ? figures.failedRuns - before : figures.failedRuns;
  sample.failedRunsTotal = figures.failedRuns;
  return sample;
}

/**
 * startClusterSeries samples every cluster's queue depth, run durations, failing objects and
 * failed runs on an interval into a bounded list per cluster, for the dashboard's sparklines.
 * One replica samples (by lease), so replicas do not write the same minute twice; the failed
 * runs are counted from the newest sample in Redis, so a replica taking over counts on.
 */
export function startClusterSeries(options: ClusterSeriesOptions): { stop(): Promise<void>; sampleNow(): Promise<void> } {
  const intervalMs = options.intervalMs ?? 15_000;
  const lease = new RedisLease(options.redis, options.keys.seriesLease, `${process.pid}:${randomUUID().slice(0, 8)}`, Math.max(3 * intervalMs, 1_000));
  const sampleNow = async () => {
    if (!(await lease.acquire())) return;
    const now = new Date();
    for (const figures of await options.queues.figures()) {
      const previous = await newestClusterSample(options.redis, options.keys, figures.cluster);
      await appendClusterSample(options.redis, options.keys, figures.cluster, sampleOf(figures, now, previous), options.keep ?? 240);
    }
  };
  const tick = () => void sampleNow().catch((error: unknown) => options.log?.warn({ err: String(error) }, 'could not sample the cluster figures'));
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    sampleNow,
    async stop() {
      clearInterval(timer);
      await lease.release().catch(() => false);
    },
  };
}
