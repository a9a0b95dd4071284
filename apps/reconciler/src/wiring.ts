import type { Logger } from 'pino';
import { TerminalError, type ReconcileJob, type ReconcileOutcome } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';
import type { KindRegistry } from '@tidemark/kinds';
import type { ClusterTarget, PlacementCache } from '@tidemark/placement';
import { reconcile, type PipelineDependencies, type PipelineObserver } from '@tidemark/pipeline';
import type { ReconcileQueues, SharedRedis } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import type { Tracer } from '@tidemark/tracing';
import type { OwnedWatches } from '@tidemark/watches';
import type { RolloutDriver, RolloutWiring } from '@tidemark/fanout';
import type { ReconcilerConfig } from './config';
import type { ClusterSet } from './clusters';
import type { CommitStatuses } from '@tidemark/git-host';
import type { RunningClusterObjects } from './cluster-objects';
import type { ReconcilerMetrics } from './metrics/reconciler-metrics';
import type { PushPathMark } from './push-path-marks';
import type { RecordsRebuild } from './records-rebuild';
import type { unitRendering } from './unit-rendering';

/**
 * Wiring is what the reconciler's parts share once the first of them started (Redis, clusters,
 * sources, queues): each role's parts (worker-side.ts, poller-side.ts) read it to build theirs.
 */
export interface Wiring {
  config: ReconcilerConfig;
  log: Logger;
  mark: PushPathMark;
  /** The time sync windows are judged at (tests move it). */
  clock: (() => Date) | undefined;
  shared: SharedRedis;
  statusStore: StatusStore;
  tracer: Tracer;
  metrics: ReconcilerMetrics;
  clusters: ClusterSet;
  rebuild: RecordsRebuild;
  /** Awaited before each run of the workers (an agent's rebuild after a Redis loss). @defaultValue none */
  beforeRun?: (job: ReconcileJob) => Promise<void>;
  /** Config-file clusters and Cluster objects: live lists. */
  clusterNames: string[];
  clusterTargets: ClusterTarget[];
  /** The clusters this process works on: all but those agents serve (an agent's config lists only its own). */
  servedNames: string[];
  kinds: KindRegistry;
  placement: PlacementCache;
  commitStatuses: CommitStatuses;
  cacheRoot: string;
  rendering: ReturnType<typeof unitRendering>;
  sources: Map<string, GitSource>;
  /** Sources of Source objects being deleted: retiring until their objects are pruned. */
  retiring: Set<string>;
  queues: ReconcileQueues;
  rollouts: RolloutDriver;
  /** A source's rollout policy at a revision, its Git Rollout included (gitRolloutPolicies). */
  rolloutPolicyAt: NonNullable<RolloutWiring['policyAt']>;
  /** The watch caches of config-file clusters (workers) and of Cluster objects (the fleet), once started. */
  owned: { watches?: OwnedWatches; objects?: RunningClusterObjects };
}

/** noMark is the mark of a deployment: nothing is told. */
export function noMark(): void {}

/** markedRuns is the worker's handler, telling `mark` when each run starts and ends. */
export function markedRuns(deps: PipelineDependencies, mark: PushPathMark, before?: (job: ReconcileJob) => Promise<void>): (job: ReconcileJob, signal: AbortSignal) => Promise<ReconcileOutcome> {
  return async (job, signal) => {
    const detail = { source: job.source, objectKey: job.objectKey, revision: job.revision };
    mark('job-started', detail);
    try {
      await before?.(job);
      return await reconcile(job, deps, signal);
    } finally {
      mark('job-finished', detail);
    }
  };
}

/** markedKubeObserver passes every API response to the metrics and to `mark`. */
export function markedKubeObserver(observer: ReconcilerMetrics['kubeObserver'], mark: PushPathMark): ReconcilerMetrics['kubeObserver'] {
  return (cluster) => {
    const observe = observer(cluster);
    return (event) => {
      observe?.(event);
      mark('kube-response', { request: event });
    };
  };
}

/** builtinCrdSources maps each built-in CRD a source may manage to the sources allowed to. */
export function builtinCrdSources(config: ReconcilerConfig): Record<string, string[]> {
  const allowed: Record<string, string[]> = {};
  for (const source of config.sources) {
    for (const crd of source.manageBuiltinCrds) (allowed[crd] ??= []).push(source.name);
  }
  return allowed;
}

/** bothObservers tells each observer of every run (metrics, then commit statuses). */
export function bothObservers(first: PipelineObserver, second: PipelineObserver): PipelineObserver {
  return { reconciled: (observation) => { first.reconciled(observation); second.reconciled(observation); } };
}

export function connectionOf<T>(map: Map<string, T>, cluster: string): T {
  const connection = map.get(cluster);
  if (!connection) throw new TerminalError('UnknownCluster', `job names cluster "${cluster}", which is not configured; add it to the clusters list.`);
  return connection;
}
