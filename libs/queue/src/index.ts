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
export type { ReconcileQueuesOptions, EnqueueAllOptions, EnqueueOptions, EnqueueResult } from './reconcile-queues-options';
export { ReconcileWorkers } from './reconcile-workers';
export type { ReconcileWorkersOptions, ClusterLimits, ClusterWorkerSpec } from './reconcile-workers-options';
export type { ReconcileHandler } from './outcome';
export { ResyncSchedule, type ClaimedObject } from './resync-schedule';
export { ResyncSweeper, type ResyncSweepOptions } from './resync-sweeper';
export type { ClusterQueueFigures, QueueDepth, DurationSummary } from './figures';
export type { FailureRecord, StalledMarker } from './object-records';
export { assertRedisSafe, type AssertRedisSafeOptions, type RedisSafety } from './assert-redis-safe';
export { openRedis, closeRedis, endWhenGone, type RedisConnection, type ConnectionRole } from './connection';
export { redisConnectionFor, openRedisClient, openRedisSubscriber, needsHashTag, parseRedisNode, describeEndpoint, type RedisAuth, type RedisEndpoint, type RedisNode } from './redis-endpoint';
export { probeRedis, type ProbeRedisOptions } from './probe-redis';
export { sharedRedis, redisGoneGuard, type SharedRedis, type SharedRedisOptions } from './shared-redis';
export { loadRedisTls, withRedisTls, tlsConnectionOptions, type RedisTls, type RedisTlsFiles } from './redis-tls';
export { RedisTlsError } from './errors/redis-tls-error';
export { computeBackoff, resolveBackoff, defaultBackoff, type BackoffOptions } from './backoff';
export { formatJobId, objectKeyOfJobId } from './job-id';
export { clusterQueuePrefix, queueNameFor, redisPrefix, type QueueNamingOptions } from './queue-names';
export { agentAclRule } from './agent-acl';
export { InvalidJobError } from './errors/invalid-job-error';
export { InvalidQueueOptionsError } from './errors/invalid-queue-options-error';
export { QueueUnavailableError } from './errors/queue-unavailable-error';
export { UnsafeRedisError } from './errors/unsafe-redis-error';
export { JobAbortedError, type AbortCause } from './errors/job-aborted-error';
export { PreviewQueue, PreviewWorkers, checkPreviewJob, previewJobId, type PreviewQueueOptions, type PreviewWorkersOptions } from './preview-queue';
