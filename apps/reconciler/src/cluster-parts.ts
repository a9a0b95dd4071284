import type { ClusterConnection, ObjectCache } from '@tidemark/cluster';
import { startHealthMonitor } from '@tidemark/cluster-health';
import type { Logger, RedisClient } from '@tidemark/contracts';
import { requeueCluster } from '@tidemark/fanout';
import type { KindRegistry } from '@tidemark/kinds';
import type { DependencyWaits } from '@tidemark/ordering';
import type { ReconcileQueues } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import { startOwnedWatches, startReferenceWatches, startTreeWatches, watchCrdsEstablished, type OwnedWatches } from '@tidemark/watches';
import type { ReconcilerConfig } from './config';

/** ClusterPartsContext is what every cluster's watches and health checks share. */
export interface ClusterPartsContext {
  config: Pick<ReconcilerConfig, 'healthCheck'>;
  kinds: KindRegistry;
  statusStore: StatusStore;
  queues: ReconcileQueues;
  redis: RedisClient;
  waits: DependencyWaits;
  log: Logger;
}

/** RunningClusterParts are the started watches and health checks of a set of clusters. */
export interface RunningClusterParts {
  /** The owned-object watches: the cache the pipeline reads. */
  readonly owned: OwnedWatches;
  cacheFor(cluster: string): ObjectCache | undefined;
  stop(): Promise<void>;
}

/**
 * startClusterParts starts, for a set of clusters, what each needs beside its queue worker: the
 * CRD-Established wake-ups, the watches of referenced and owned objects and of resource trees, and
 * the health monitor that pauses an unreachable cluster's queue. The config-file clusters get one
 * set at start; each Cluster object gets its own when it is added, stopped when it goes.
 */
export function startClusterParts(clusters: ReadonlyMap<string, ClusterConnection>, context: ClusterPartsContext): RunningClusterParts {
  const { config, kinds, statusStore, queues, redis, waits, log } = context;
  const stops: (() => Promise<void> | void)[] = [];
  // A custom resource waiting for its kind starts the moment a CRD serving it is Established.
  const crdWakes = watchCrdsEstablished({ clusters, wake: (cluster, tokens) => waits.wake(cluster, tokens), log });
  stops.push(() => crdWakes.stop());
  const watches = startReferenceWatches({ clusters, kinds, statusStore, queues, redis, log });
  stops.push(() => watches.stop());
  const owned = startOwnedWatches({ clusters, statusStore, queues, redis, log });
  stops.push(() => owned.stop());
  // ReplicaSets and Pods under what Tidemark applied, for the dashboard's resource trees.
  const trees = startTreeWatches({ clusters, statusStore, redis, log });
  stops.push(() => trees.stop());
  const health = startHealthMonitor({
    clusters, queues, statusStore, redis, log,
    intervalMs: config.healthCheck.intervalMs, timeoutMs: config.healthCheck.timeoutMs, failureThreshold: config.healthCheck.failureThreshold, quietIntervalMs: config.healthCheck.quietIntervalMs,
    onRecovered: async (cluster) => {
      const requeued = await requeueCluster(cluster, { redis, statusStore, queues });
      log.info({ cluster, requeued }, 're-enqueued the objects of a recovered cluster');
    },
  });
  stops.push(() => health.stop());
  return {
    owned,
    cacheFor: (cluster) => owned.cacheFor(cluster),
    async stop() {
      for (const undo of stops.reverse()) await Promise.resolve(undo()).catch((error: unknown) => log.warn({ err: String(error) }, 'stop step failed'));
    },
  };
}
