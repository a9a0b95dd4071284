import { InvalidQueueOptionsError } from './errors/invalid-queue-options-error';

/** QueueNaming says where a deployment's queues live in Redis. */
export interface QueueNamingOptions {
  /** Prefix of every key. @defaultValue 'tidemark' */
  prefix?: string;
  /**
   * Wrap the prefix in a Redis Cluster hash tag: `{tidemark}` for the deployment's own records, and
   * `{tidemark.<cluster>}` for each target cluster's queue (see clusterQueuePrefix), so every key of
   * one queue lands in one slot, as BullMQ's multi-key scripts require on Redis Cluster, while the
   * queues of different clusters spread over the Redis Cluster's primaries. @defaultValue false
   */
  hashTag?: boolean;
}

const clusterNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** redisPrefix returns the BullMQ prefix for the naming options, hash tag included. */
export function redisPrefix(options: QueueNamingOptions = {}): string {
  const prefix = options.prefix ?? 'tidemark';
  if (prefix.length === 0 || /[{}\s]/.test(prefix)) {
    throw new InvalidQueueOptionsError(`The queue prefix "${prefix}" must be non-empty, without braces or spaces; set hashTag to get a Redis Cluster hash tag.`);
  }
  return options.hashTag ? `{${prefix}}` : prefix;
}

/**
 * clusterQueuePrefix returns the BullMQ prefix of one target cluster's queue and of its own keys
 * (objectStateKeys): the plain prefix, or with hashTag `{<prefix>.<cluster>}`, one slot per cluster.
 */
export function clusterQueuePrefix(options: QueueNamingOptions, cluster: string): string {
  const prefix = redisPrefix({ ...options, hashTag: false });
  queueNameFor(cluster);
  return options.hashTag ? `{${prefix}.${cluster}}` : prefix;
}

/** queueNameFor gives the BullMQ queue name of a target cluster: `reconcile.<cluster>`. */
export function queueNameFor(cluster: string): string {
  if (!clusterNamePattern.test(cluster)) {
    throw new InvalidQueueOptionsError(`The cluster name "${cluster}" cannot name a queue: use 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit.`);
  }
  return `reconcile.${cluster}`;
}

/** ObjectStateKeys are Tidemark's own keys next to a queue's BullMQ keys (same hash tag). */
export interface ObjectStateKeys {
  /** hash objectKey → latest ReconcileJob JSON: the revision a worker must reconcile. */
  latest: string;
  /** hash objectKey → StalledMarker JSON: terminal failure at a revision. */
  stalled: string;
  /** hash objectKey → FailureRecord JSON: consecutive failures and the last error. */
  failures: string;
  /** hash objectKey → time: a look-again (watch, drift, manual) asked while the object's job ran. */
  nudged: string;
  /** list of recent wait times (ms), newest first. */
  waitTimes: string;
  /** list of recent processing times (ms), newest first. */
  processingTimes: string;
  /** counter of runs that ended in an error (transient or terminal), ever: samplers take its differences. */
  failedRuns: string;
  /** sorted set objectKey → due time (ms): objects whose last run ended Ready, waiting for their routine resync (ResyncSchedule). */
  resyncDue: string;
}

/** objectStateKeys returns the extra keys for one cluster's queue. */
export function objectStateKeys(prefix: string, cluster: string): ObjectStateKeys {
  const base = `${prefix}:${queueNameFor(cluster)}:tm`;
  return {
    latest: `${base}:latest`,
    stalled: `${base}:stalled`,
    failures: `${base}:failures`,
    nudged: `${base}:nudged`,
    waitTimes: `${base}:wait-ms`,
    processingTimes: `${base}:processing-ms`,
    failedRuns: `${base}:failed-runs`,
    resyncDue: `${base}:resync-due`,
  };
}
