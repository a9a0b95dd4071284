import { idle, readClusterFreeze, readSourceStatus, runnable, Runnables, type Runnable } from '@tidemark/contracts';
import { createConversionWebhook, keepInstallingBuiltinCrds } from '@tidemark/conversion';
import { startClusterSeries } from '@tidemark/cluster-health';
import { gitDesiredState, requeueCluster, rolloutTargets } from '@tidemark/fanout';
import { compileHealthRules, withHealthRules } from '@tidemark/kinds';
import { DependencyWaits } from '@tidemark/ordering';
import { PolicyKeeper, unchangedJobs, type PipelineDependencies } from '@tidemark/pipeline';
import { createNotifications } from '@tidemark/notify';
import { previewComments } from '@tidemark/preview';
import { holdForEverySource, startSyncWindowMonitor, syncWindowOf, type SyncWindowsOptions } from '@tidemark/placement';
import { ReconcileWorkers, type ReconcileWorkersOptions } from '@tidemark/queue';
import { PruneHolds, takeSyncWindowPass } from '@tidemark/status-store';
import { watchBuiltinCrds } from '@tidemark/watches';
import { startClusterParts } from './cluster-parts';
import type { ClusterWork } from './cluster-objects';
import { sourceDeclarations } from './declarations';
import { startPreviewJobs } from './preview-jobs';
import { sourceOwner, sourceTenancy } from './source-tenancy';
import { bothObservers, builtinCrdSources, connectionOf, markedRuns, type Wiring } from './wiring';

/** WorkerSide is what the workers give the rest: what a worker runs for a cluster added at runtime. */
export interface WorkerSide {
  work: ClusterWork | undefined;
  stop(): Promise<void>;
}

/**
 * workerSide is the part that takes jobs (every role but the poller): the pipeline's dependencies,
 * the conversion webhook and built-in CRDs, the workers on the served clusters, previews, per-cluster
 * watches and health checks, sync-window wake-ups, the dashboard's sparklines and notifications.
 * Its own parts start in that order and stop in reverse.
 */
export function workerSide(w: Wiring): Runnable<WorkerSide> {
  if (w.config.role === 'poller') return runnable('workers', () => ({ work: undefined, stop: async () => undefined }));
  return runnable('workers', async () => {
    const parts = new Runnables(w.log);
    try {
      return { work: await startWorkerParts(w, parts), stop: () => parts.stop() };
    } catch (error) {
      await parts.stop();
      throw error;
    }
  });
}

async function startWorkerParts(w: Wiring, parts: Runnables): Promise<ClusterWork> {
  const { config, log, clusters, kinds, statusStore, queues, metrics } = w;
  const { redis, recordPrefix, connection, hashTag } = w.shared;
  const waits = new DependencyWaits({ redis, prefix: recordPrefix, enqueue: (job) => queues.enqueue(job) });
  // The owned-object watches start after the workers; until then, reads go to the API server.
  const driftPrevention = await parts.start(runnable('drift prevention', () => new PolicyKeeper({ connectionFor: (cluster) => connectionOf(clusters.main, cluster), rules: config.driftPrevention, log })));
  const deps = pipelineDependencies(w, driftPrevention, waits);
  const conversion = await parts.start(createConversionWebhook({ kinds, log, connectionFor: deps.connectionFor }, config.conversionWebhook));
  const crdOptions = {
    conversion: () => conversion.conversion(),
    migration: { objectsPerSecond: config.conversionWebhook.migrationObjectsPerSecond, onProgress: (progress: Parameters<typeof metrics.storageMigration>[0]) => metrics.storageMigration(progress) },
    ownership: { gitManaged: new Set(Object.keys(builtinCrdSources(config))) },
  };
  const crds = await parts.start(runnable('built-in CRDs', () => keepInstallingBuiltinCrds(clusters.main, kinds, log, crdOptions)));
  // A built-in CRD deleted or changed by hand is installed again at once, not at the next start.
  await parts.start(runnable('built-in CRD watch', () => watchBuiltinCrds({ clusters: clusters.main, crdNames: kinds.list().map((plugin) => plugin.crd.metadata.name), reinstall: () => crds.reinstall(), log })));
  conversion.keepCurrent(() => crds.reinstall());
  const workerOptions = {
    connection, prefix: config.redisPrefix, hashTag,
    defaults: { concurrency: config.concurrency },
    // Ready objects wait for their resync in a schedule; unchanged ones are answered in batches, without a job.
    resync: {
      intervalMs: config.resyncIntervalMs, unchanged: (jobs) => unchangedJobs(jobs, deps), enqueue: (job) => queues.enqueue(job),
      onSwept: (cluster, unchanged, changed) => metrics.resyncSwept(cluster, unchanged, changed),
    },
    onError: (error: Error) => log.warn({ err: error.message }, 'queue worker error'),
  } satisfies Omit<ReconcileWorkersOptions, 'clusters'>;
  // A hub whose clusters agents all serve runs no worker.
  await parts.start(w.servedNames.length === 0 ? idle('queue workers') : runnable('queue workers', async () => {
    const workers = new ReconcileWorkers({ ...workerOptions, clusters: [...w.servedNames] });
    await workers.start(markedRuns(deps, w.mark, w.beforeRun));
    return () => workers.close();
  }));
  await parts.start(runnable('preview jobs', () => startPreviews(w, deps)));
  // Per cluster: CRD wake-ups, watches and health checks; config-file clusters now, Cluster objects as they come.
  const partsContext = { config, kinds, statusStore, queues, redis, waits, log };
  const clusterParts = await parts.start(runnable('cluster watches', () => startClusterParts(clusters.main, partsContext)));
  w.owned.watches = clusterParts.owned;
  // Time held per cluster for the metric, and a wake-up the moment a window lets go.
  await parts.start(runnable('sync window monitor', () => startSyncWindowMonitor({
    windows: config.syncWindows, clusters: () => w.clusterTargets, clock: w.clock, log,
    intervalMs: Math.min(10_000, config.syncWindowRecheckMs),
    onLook: (cluster, held, seconds) => metrics.syncWindowHeld(cluster, held, seconds),
    onOpened: (cluster) => requeueCluster(cluster, { redis, statusStore, queues }),
  })));
  // An hour of queue depth, run durations and failing objects per cluster, for the dashboard's sparklines.
  // The hub samples an agent's cluster.
  await parts.start(config.role === 'agent' ? idle('cluster series') : runnable('cluster series', () => startClusterSeries({ queues, redis, keys: statusStore.keys, log })));
  // Alerts on transitions, delivered through queues of their own: a slow receiver never holds a worker.
  await parts.start(createNotifications({
    connection, queuePrefix: config.redisPrefix, hashTag, redis, recordPrefix, statusStore, connectionFor: deps.connectionFor, log,
    syncWindowHoldOf: holdForEverySource({ windows: config.syncWindows, clusters: () => w.clusterTargets, clock: w.clock }), clusters: config.clusters.map((cluster) => cluster.name),
  }, config.notifications));
  return {
    async start(name, cluster) {
      const one = new Map([[name, cluster]]);
      const clusterWorkers = new ReconcileWorkers({ ...workerOptions, clusters: [name] });
      await clusterWorkers.start(markedRuns(deps, w.mark));
      const clusterCrds = keepInstallingBuiltinCrds(one, kinds, log, crdOptions);
      const oneClusterParts = startClusterParts(one, partsContext);
      return {
        cacheFor: (cacheCluster) => oneClusterParts.cacheFor(cacheCluster),
        async stop() {
          await oneClusterParts.stop();
          clusterCrds.stop();
          await clusterWorkers.close();
        },
      };
    },
  };
}

/** pipelineDependencies are what a run reads and writes through: Git, the clusters, Redis, the operator's rules. */
function pipelineDependencies(w: Wiring, driftPrevention: PolicyKeeper, waits: DependencyWaits): PipelineDependencies {
  const { config, log, clusters, sources, retiring, statusStore, queues } = w;
  const { redis, recordPrefix } = w.shared;
  const desired = gitDesiredState(sources, w.placement, w.clusterTargets, retiring, rolloutTargets(redis, statusStore.keys, config.rollouts, w.rolloutPolicyAt));
  const headOf = async (source: string) => {
    const recorded = await readSourceStatus(redis, statusStore.keys, source);
    return recorded.head ?? recorded.revision;
  };
  return {
    connectionFor: (cluster) => connectionOf(clusters.main, cluster),
    actionsConnectionFor: (cluster) => connectionOf(clusters.actions, cluster),
    desired,
    declarations: sourceDeclarations({ sources, retiring, reader: desired, headOf, enqueue: (job) => queues.enqueue(job) }),
    tenancyFor: sourceTenancy(sources, config),
    ownerOf: sourceOwner,
    // Read at the run: a Source object's change applies to the next run of its objects.
    healthTimeoutFor: (source) => sources.get(source)?.spec.healthTimeoutMs,
    driftPolicyFor: (source) => sources.get(source)?.spec.driftPolicy,
    driftPrevention,
    kinds: w.kinds,
    healthRules: withHealthRules(compileHealthRules(config.objectHealth.rules, 'objectHealth.rules')),
    statusStore,
    cacheFor: (cluster) => w.owned.watches?.cacheFor(cluster) ?? w.owned.objects?.cacheFor(cluster),
    log,
    observer: bothObservers(w.metrics.observer, w.commitStatuses.observer),
    tracer: w.tracer,
    pruneHolds: new PruneHolds(redis, recordPrefix),
    // Read at every run: an operator's freeze stops the next write to the cluster.
    freezeOf: (cluster) => readClusterFreeze(redis, statusStore.keys, cluster),
    // The operator's windows from tidemark.yaml, judged at every run; an operator's reconcile passes one that allows manual syncs.
    ...windowDependencies({ windows: config.syncWindows, clusters: () => w.clusterTargets, clock: w.clock }, (cluster, objectKey) => takeSyncWindowPass(redis, statusStore.keys, cluster, objectKey)),
    ordering: waits,
    // Records from before this start get a full run first: this release or config may render differently.
    options: { syncWindowRecheckMs: config.syncWindowRecheckMs, resyncIntervalMs: config.resyncIntervalMs, fullCheckIntervalMs: config.fullCheckIntervalMs, fullCheckAfter: new Date(), dependencyRecheckMs: config.dependencyRecheckMs, progressingRequeueMs: config.progressingRequeueMs, healthTimeoutMs: config.objectHealth.timeoutMs, builtinCrdSources: builtinCrdSources(config) },
  };
}

/**
 * startPreviews runs previews of refs that are not merged: the pipeline's readers, dry-runs only.
 * They dry-run on the hub's own clusters; an agent, which sees one cluster, takes no preview jobs.
 */
function startPreviews(w: Wiring, deps: PipelineDependencies): ReturnType<typeof startPreviewJobs> {
  const { config, log, statusStore } = w;
  const previewTargets = w.clusterTargets.filter((target) => config.role !== 'agent' && w.servedNames.includes(target.name));
  return startPreviewJobs({
    connection: w.shared.connection, queuePrefix: config.redisPrefix, hashTag: w.shared.hashTag, redis: w.shared.redis, keys: statusStore.keys, sources: w.sources, clusters: previewTargets, cacheRoot: w.cacheRoot, log,
    commentOn: previewComments(config.gitHosts, deps.connectionFor, log, config.render.sops.trustedSources),
    render: { connectionFor: deps.connectionFor, tenancyFor: deps.tenancyFor, driftPolicyFor: deps.driftPolicyFor, kinds: w.kinds, statusStore, options: { builtinCrdSources: builtinCrdSources(config) } },
  });
}

/** windowDependencies are the pipeline's sync-window dependencies; none without windows, so a run asks nothing. */
function windowDependencies(options: SyncWindowsOptions, takeWindowPass: NonNullable<PipelineDependencies['takeWindowPass']>): Pick<PipelineDependencies, 'syncWindowOf' | 'takeWindowPass'> {
  return options.windows.length > 0 ? { syncWindowOf: syncWindowOf(options), takeWindowPass } : {};
}
