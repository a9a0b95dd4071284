// Owns: the BullMQ queues and workers: one queue per cluster, job ids and deduplication per object, the
//   latest-revision slot, backoff, the stall marker (a cache filled only from runs' outcomes; the pipeline
//   decides what is stalled, and a worker never skips a job on the marker), leases on running jobs, queue
//   figures, opening Redis connections (sharedRedis: a process's main client as a runnable part, with the
//   record schema claim), and an agent's Redis ACL rule for one cluster's keys (agentAclRule).
// Entry points: ReconcileQueues, ReconcileWorkers, ResyncSweeper, openRedis, sharedRedis.
// Records: each cluster's BullMQ queue and its extra keys (<queue>:tm:latest, :stalled, :failures, :nudged,
//   :wait-ms, :processing-ms, :failed-runs, :resync-due).
// May import: @tidemark/contracts.

export { ReconcileQueues } from './reconcile-queues';
export { ReconcileWorkers } from './reconcile-workers';
export type { ReconcileWorkersOptions } from './reconcile-workers-options';
export type { ReconcileHandler } from './outcome';
export { ResyncSweeper } from './resync-sweeper';
export type { ClusterQueueFigures, DurationSummary } from './figures';
export { assertRedisSafe } from './assert-redis-safe';
export { openRedis, closeRedis, endWhenGone, type RedisConnection } from './connection';
export { redisConnectionFor, openRedisClient, openRedisSubscriber, needsHashTag, parseRedisNode, type RedisAuth, type RedisEndpoint, type RedisNode } from './redis-endpoint';
export { probeRedis } from './probe-redis';
export { sharedRedis, redisGoneGuard, type SharedRedis } from './shared-redis';
export { loadRedisTls, withRedisTls, type RedisTlsFiles } from './redis-tls';
export { RedisTlsError } from './errors/redis-tls-error';
export { formatJobId } from './job-id';
export { clusterQueuePrefix, queueNameFor, redisPrefix, type QueueNamingOptions } from './queue-names';
export { agentAclRule } from './agent-acl';
export { InvalidJobError } from './errors/invalid-job-error';
export { InvalidQueueOptionsError } from './errors/invalid-queue-options-error';
export { QueueUnavailableError } from './errors/queue-unavailable-error';
export { UnsafeRedisError } from './errors/unsafe-redis-error';
export { JobAbortedError } from './errors/job-aborted-error';
export { PreviewQueue, PreviewWorkers, previewJobId, type PreviewQueueOptions } from './preview-queue';
