import type { KubeConfig } from '@kubernetes/client-node';
import { applyChangeSet, ClusterConnection, type KubeClientOptions, type ObjectCache } from '@tidemark/cluster';
import { clusterCrd, ClusterController, type ClusterRegistry } from '@tidemark/cluster-objects';
import { readSourceStatus, type Logger, type RedisClient } from '@tidemark/contracts';
import { requeueCluster, routePoll } from '@tidemark/fanout';
import type { GitSource } from '@tidemark/git-source';
import type { PlacementCache } from '@tidemark/placement';
import type { ReconcileQueues } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';
import { crdInstallerManager } from '@tidemark/conversion';
import type { ClusterSet } from './clusters';
import type { ClusterObjectsConfig } from './cluster-objects-config';

/** ClusterWork is what a process runs for one cluster beside its connection (absent in a poller-only process). */
export interface ClusterWork {
  /** Starts the cluster's queue worker, watches, health checks and built-in CRDs; returns their stop and watch cache. */
  start(name: string, connection: ClusterConnection): Promise<{ stop(): Promise<void>; cacheFor(cluster: string): ObjectCache | undefined }>;
}

/** ClusterObjectsWiring is what the Cluster controller's hooks change and read. */
export interface ClusterObjectsWiring {
  config: ClusterObjectsConfig;
  management: ClusterConnection;
  registry: ClusterRegistry;
  /** The one map of connections the pipeline and every watch read; Cluster objects are added to it and removed. */
  clusters: ClusterSet;
  /** Absent where this process runs no workers (role poller). */
  work?: ClusterWork;
  /** Present where this process routes polls (roles all and poller): a new or relabelled cluster is routed here. */
  routing?: { sources: ReadonlyMap<string, GitSource>; placement: PlacementCache };
  observe?: (cluster: string) => KubeClientOptions['onResponse'];
  redis: RedisClient;
  statusStore: StatusStore;
  queues: ReconcileQueues;
  log: Logger;
}

/** RunningClusterObjects is the started controller, with the watch caches of the clusters it started. */
export interface RunningClusterObjects {
  cacheFor(cluster: string): ObjectCache | undefined;
  stop(): Promise<void>;
}

/**
 * startClusterObjects installs the Cluster CRD on the management cluster and starts the controller
 * that turns Cluster objects into clusters of this process, without a restart. Only wiring: what a
 * Cluster means is libs/cluster-objects', how its objects are routed and pruned is libs/fanout's.
 */
export async function startClusterObjects(wiring: ClusterObjectsWiring): Promise<RunningClusterObjects> {
  const { registry, clusters, log } = wiring;
  await applyChangeSet(wiring.management.asManager(crdInstallerManager), [clusterCrd()]);
  const running = new Map<string, Awaited<ReturnType<ClusterWork['start']>>>();
  const controller = new ClusterController({
    connection: wiring.management,
    namespace: wiring.config.namespace,
    registry,
    log,
    manages: wiring.routing !== undefined,
    allowExecPlugins: wiring.config.allowExecPlugins,
    probeIntervalMs: wiring.config.probeIntervalMs,
    hooks: {
      async start(name: string, kubeconfig: KubeConfig) {
        // The loader has refused exec plugins already unless allowed; the client checks again.
        const connection = ClusterConnection.connect({ cluster: name, kubeconfig, allowExecPlugins: wiring.config.allowExecPlugins, fieldManager: 'tidemark', onResponse: wiring.observe?.(name) });
        clusters.main.set(name, connection);
        clusters.actions.set(name, connection.asManager('tidemark-actions'));
        if (wiring.work) running.set(name, await wiring.work.start(name, connection));
      },
      async stop(name: string) {
        const parts = running.get(name);
        running.delete(name);
        await parts?.stop();
        clusters.main.get(name)?.close();
        clusters.main.delete(name);
        clusters.actions.delete(name);
      },
      connectionFor: (name) => clusters.main.get(name),
      route: (name) => routeCluster(name, wiring),
      async retire(name: string) {
        // Out of the registry, no source places anything there: each object's run prunes it, under the guards.
        if (wiring.routing) await requeueCluster(name, wiring, 'git-removed');
        return (await wiring.statusStore.list(name)).length;
      },
    },
  });
  await controller.start();
  return {
    cacheFor: (cluster) => running.get(cluster)?.cacheFor(cluster),
    stop: () => controller.stop(),
  };
}

/**
 * routeCluster enqueues, for every source at its current revision, the jobs placement now gives
 * one cluster: a new cluster gets its objects, a relabelled one also the prune of what no longer
 * goes there. A source that has not been polled yet is routed by its first poll.
 */
async function routeCluster(name: string, wiring: ClusterObjectsWiring): Promise<void> {
  if (!wiring.routing) return;
  const { sources, placement } = wiring.routing;
  let enqueued = 0;
  for (const [sourceName, source] of sources) {
    const { revision } = await readSourceStatus(wiring.redis, wiring.statusStore.keys, sourceName);
    if (!revision) continue;
    // A poll result without a previous revision routes every object the source has or had, as placement says.
    const jobs = await routePoll({ source: sourceName, revision, moved: false, changes: [], errors: [], durationMs: 0, fetchedObjects: 0 }, { source, placement, clusters: wiring.registry.targets, statusStore: wiring.statusStore });
    // A Cluster changed (a watch event): its jobs run now, even one waiting out a backoff from old credentials.
    const counts = await wiring.queues.enqueueAll(jobs.filter((job) => job.cluster === name).map((job) => (job.reason === 'git-removed' ? job : { ...job, reason: 'watch' as const })));
    enqueued += counts.queued + counts.merged;
  }
  wiring.log.info({ cluster: name, enqueued }, 'routed the objects placement gives a Cluster');
}
