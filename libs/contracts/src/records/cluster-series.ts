import type { Redis } from 'ioredis';
import type { RecordKeys } from './record-keys';

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
}

/** appendClusterSample adds a sample and drops the oldest beyond `keep`. */
export async function appendClusterSample(redis: Redis, keys: RecordKeys, cluster: string, sample: ClusterSample, keep: number): Promise<void> {
  const key = keys.clusterSeries(cluster);
  await redis.multi().lpush(key, JSON.stringify(sample)).ltrim(key, 0, keep - 1).exec();
}

/** readClusterSeries returns a cluster's samples, oldest first (empty when none were taken); unreadable entries are dropped. */
export async function readClusterSeries(redis: Redis, keys: RecordKeys, cluster: string): Promise<ClusterSample[]> {
  const raw = await redis.lrange(keys.clusterSeries(cluster), 0, -1);
  return raw.flatMap((entry) => {
    try {
      const sample = JSON.parse(entry) as ClusterSample;
      return typeof sample.at === 'string' && typeof sample.queued === 'number' ? [sample] : [];
    } catch {
      return [];
    }
  }).reverse();
}
