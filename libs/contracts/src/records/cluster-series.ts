import { countOf, jsonRecordOf, optional, textOf } from './record-fields';
import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';

/**
 * ClusterSample is one point of a cluster's recent figures, as the dashboard's sparklines draw
 * them. Written by cluster-health's sampler, read by the dashboard.
 */
export interface ClusterSample {
  /** When the sample was taken (RFC 3339). */
  at: string;
  /** Jobs waiting, running or delayed on the cluster's queue. */
  queued: number;
  /** Reconcile duration of recent runs, median and 99th percentile (ms); absent before any run. */
  runP50?: number;
  runP99?: number;
  /** Objects whose last run failed (each counted once). */
  failing: number;
  /** Runs that ended in an error since the previous sample (absent in samples written before it was kept). */
  failedRuns?: number;
  /** The queue's failed-run counter when the sample was taken, from which the next sample's failedRuns is the difference. */
  failedRunsTotal?: number;
}

/** newestClusterSample returns a cluster's latest sample, undefined when none was taken or it is unreadable. */
export async function newestClusterSample(redis: RedisClient, keys: RecordKeys, cluster: string): Promise<ClusterSample | undefined> {
  return parseSamples([await redis.lindex(keys.clusterSeries(cluster), 0)])[0];
}

/** readClusterSeries returns a cluster's samples, oldest first (empty when none were taken); unreadable entries are dropped. */
export async function readClusterSeries(redis: RedisClient, keys: RecordKeys, cluster: string): Promise<ClusterSample[]> {
  return parseSamples(await redis.lrange(keys.clusterSeries(cluster), 0, -1)).reverse();
}

function parseSamples(raw: readonly (string | null)[]): ClusterSample[] {
  return raw.flatMap((entry) => parseClusterSample(entry) ?? []);
}

/** parseClusterSample reads one sample of a cluster's series; undefined for anything that is not one. */
export function parseClusterSample(raw: string | null | undefined): ClusterSample | undefined {
  const value = jsonRecordOf(raw);
  const at = textOf(value?.at, 64);
  const queued = countOf(value?.queued);
  if (!value || at === undefined || queued === undefined) return undefined;
  return {
    at, queued, failing: countOf(value.failing) ?? 0,
    ...optional('runP50', countOf(value.runP50)), ...optional('runP99', countOf(value.runP99)),
    ...optional('failedRuns', countOf(value.failedRuns)), ...optional('failedRunsTotal', countOf(value.failedRunsTotal)),
  };
}
