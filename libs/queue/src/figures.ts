import type { Cluster, Redis } from 'ioredis';
import type { Queue } from 'bullmq';
import { parseFailureRecord, type FailureRecord } from './object-records';
import type { ObjectStateKeys } from './queue-names';

/** DurationSummary summarises the most recent samples (up to 1,000 per cluster), in ms. */
export interface DurationSummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

/** QueueDepth counts one cluster's jobs per BullMQ state. */
export interface QueueDepth {
  waiting: number;
  active: number;
  delayed: number;
  prioritized: number;
  failed: number;
}

/** ClusterQueueFigures is what the dashboard and the metrics show for one cluster's queue. */
export interface ClusterQueueFigures {
  cluster: string;
  queueName: string;
  paused: boolean;
  depth: QueueDepth;
  /** From enqueue (or the end of a requested delay) to the start of the first run. */
  waitMs: DurationSummary;
  /** Handler time of each run, whatever its outcome. */
  processingMs: DurationSummary;
  /** Objects whose last run failed, newest first, capped by `failureLimit`. */
  failures: FailureRecord[];
  /** All objects whose last run failed (the list above may be shorter). */
  failingObjects: number;
  /** Runs that ended in an error since the queue's records began: a counter, so its change over a time is the failed runs in it. */
  failedRuns: number;
}

/** summarize computes a DurationSummary of samples (nearest-rank percentiles). */
export function summarize(samples: readonly number[]): DurationSummary {
  if (samples.length === 0) return { count: 0, p50: 0, p99: 0, max: 0, mean: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return { count: sorted.length, p50: rank(0.5), p99: rank(0.99), max: sorted[sorted.length - 1] ?? 0, mean: Math.round(total / sorted.length) };
}

/** collectFigures reads one cluster's figures: BullMQ counts plus Tidemark's records. */
export async function collectFigures(
  client: Redis | Cluster,
  queue: Queue,
  context: { cluster: string; keys: ObjectStateKeys; failureLimit: number },
): Promise<ClusterQueueFigures> {
  const [counts, paused, replies] = await Promise.all([
    queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed'),
    queue.isPaused(),
    client.pipeline()
      .lrange(context.keys.waitTimes, 0, -1)
      .lrange(context.keys.processingTimes, 0, -1)
      .hvals(context.keys.failures)
      .get(context.keys.failedRuns)
      .exec(),
  ]);
  const list = (index: number): string[] => {
    const [error, result] = replies?.[index] ?? [null, []];
    if (error) throw error;
    return Array.isArray(result) ? result.map(String) : [];
  };
  const failures = list(2)
    .map((raw) => parseFailureRecord(raw))
    .filter((record): record is FailureRecord => record !== undefined)
    .sort((a, b) => b.at.localeCompare(a.at));
  return {
    cluster: context.cluster,
    queueName: queue.name,
    paused,
    depth: {
      // BullMQ 6 keeps a paused queue's jobs in its waiting list (5 moved them to a paused list).
      waiting: counts.waiting ?? 0,
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      prioritized: counts.prioritized ?? 0,
      failed: counts.failed ?? 0,
    },
    waitMs: summarize(list(0).map(Number)),
    processingMs: summarize(list(1).map(Number)),
    failures: failures.slice(0, context.failureLimit),
    failingObjects: failures.length,
    failedRuns: counterValue(replies?.[3]),
  };
}

/** counterValue reads an INCR counter's reply: 0 when it was never set or is unreadable. */
function counterValue(reply: [Error | null, unknown] | undefined): number {
  const [error, result] = reply ?? [null, null];
  if (error) throw error;
  const value = Number(result ?? 0);
  return Number.isSafeInteger(value) && value >= 0 ? value : 0;
}
