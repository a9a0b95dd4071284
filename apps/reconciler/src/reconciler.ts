import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { TerminalError, readClusterFreeze, readSourceStatus, RecordKeys, messageOf, type ReconcileJob, type ReconcileOutcome } from '@tidemark/contracts';
import { fileCredentials, GitSource, type GitSourceOptions, type SourceSpec, type UnitRendering } from '@tidemark/git-source';
import { compileHealthRules, createDefaultRegistry, withHealthRules } from '@tidemark/kinds';
import { PlacementCache } from '@tidemark/placement';
import { PolicyKeeper, reconcile, unchangedJobs, type PipelineDependencies, type PipelineObserver } from '@tidemark/pipeline';
import { Poller, type PolledSource } from '@tidemark/poller';
import { startTracing, type TraceSpan } from '@tidemark/tracing';
import { closeRedis, endWhenGone, needsHashTag, openRedisClient, probeRedis, ReconcileQueues, ReconcileWorkers, redisConnectionFor, redisPrefix, type ReconcileWorkersOptions } from '@tidemark/queue';
import { CommitClock, PruneHolds, StatusStore, takeSyncWindowPass } from '@tidemark/status-store';
import type { ReconcilerConfig } from './config';
import { connectClusters } from './clusters';
import { recordsRebuild } from './records-rebuild';
import { checkRedisSettings, claimRecords } from './redis-records';
import { ClusterRegistry } from '@tidemark/cluster-objects';
import { startClusterObjects, type ClusterObjectsWiring, type ClusterWork, type RunningClusterObjects } from './cluster-objects';
import { startClusterParts } from './cluster-parts';
import { sourceOwner, sourceTenancy } from './source-tenancy';
import { gitDesiredState } from './desired-state';
import { sourceDeclarations } from './declarations';
import { keepInstallingBuiltinCrds } from './builtin-crds';
import { startConversionWebhook } from './conversion-webhook';
import { SecretCertificateStore } from '@tidemark/conversion';
import { startHttpServer, type HttpServer } from './http-server';
import { startClusterSeries } from '@tidemark/cluster-health';
import { startAgentSide } from './agent-side';
import { requeueCluster, routePoll, startFullResync } from '@tidemark/fanout';
import { type OwnedWatches, watchBuiltinCrds } from '@tidemark/watches';
import { DependencyWaits } from '@tidemark/ordering';
import { ReconcilerMetrics } from './metrics/reconciler-metrics';
import { reportRenderSandbox } from './render-sandbox-report';
import { configVariables, sourceRendering, unitRendering, watchRenderCapabilities, type SourceObjectKeys } from './unit-rendering';
import { followFleet } from './render-fleet';
import { startSourceObjects } from './source-objects';
import { sourceObjectRules } from './source-objects-config';
import { startPreviewJobs, startWebhookPreviews } from './preview-jobs';
import { startCommitStatuses } from './commit-statuses';
import { startNotifications } from './notifications';
import { previewComments } from './preview-comments';
import type { PushPathMark } from './push-path-marks';
import { holdForEverySource, startSyncWindowMonitor, windowDependencies } from './sync-window-monitor';
import { gitRolloutPolicies, rolloutDriver, rolloutTargets, type RolloutWiring } from './rollouts';
import { startRolloutCommitStatuses } from './rollout-commit-statuses';
import { rolloutHoldOf } from './rollout-holds';
import { PendingPreviews } from './pending-previews';

/** pollingRoles are the roles that run the poller: a worker and an agent take jobs only. */
const pollingRoles: ReadonlySet<ReconcilerConfig['role']> = new Set(['all', 'poller']);

/** RunningReconciler is a started reconciler; stop undoes start, in reverse order. */
export interface RunningReconciler {
  readonly statusStore: StatusStore;
  readonly queues: ReconcileQueues;
  readonly http: HttpServer;
  stop(): Promise<void>;
}

/** StartReconcilerOptions are for benches and tests; a deployment passes none. */
export interface StartReconcilerOptions {
  /** Told when a push passes each point of its path (see PushPathStage). @defaultValue none */
  mark?: PushPathMark;
  /** The time sync windows are judged at, for tests that move it instead of waiting. @defaultValue the system clock */
  clock?: () => Date;
  /** The rollout driver's clock, tick and observers (tests inject time; benches observe reaches). @defaultValue real time */
  rollouts?: RolloutWiring['driver'];
  /** How often records an older release wrote under the shared tag are moved to their cluster's (moveClusterKeys). @defaultValue 60000 */
  keyMoveIntervalMs?: number;
}

/**
 * startReconciler wires the parts for the configured role: the poller (one leader per source)
 * feeds the per-cluster queues; workers run the pipeline; an HTTP server answers health,
 * readiness and webhooks. Nothing here reconciles by itself: it only connects the libraries.
 */
export async function startReconciler(config: ReconcilerConfig, log: Logger, options: StartReconcilerOptions = {}): Promise<RunningReconciler> {
  const stops: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const undo of stops.reverse()) await Promise.resolve(undo()).catch((error: unknown) => log.warn({ err: String(error) }, 'stop step failed'));
  };
  try {
    const running = await wire(config, log, stops, options.mark ?? noMark, { ...(options.clock ? { clock: options.clock } : {}), ...(options.rollouts ? { rollouts: options.rollouts } : {}), keyMoveIntervalMs: options.keyMoveIntervalMs ?? 60_000 });
    return { ...running, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function wire(config: ReconcilerConfig, log: Logger, stops: (() => Promise<void> | void)[], mark: PushPathMark, { clock, rollouts: rolloutOptions, keyMoveIntervalMs }: Pick<StartReconcilerOptions, 'clock' | 'rollouts'> & { keyMoveIntervalMs: number }): Promise<Omit<RunningReconciler, 'stop'>> {
  // A URL, a Sentinel group or a Redis Cluster; on a cluster every key carries the hash tag {prefix}.
  const connection = redisConnectionFor(config.redis);
  const hashTag = needsHashTag(config.redis);
  const recordPrefix = redisPrefix({ prefix: config.redisPrefix, hashTag });
  // One bounded attempt before any client that reconnects forever: a refused certificate or an
  // unreachable Redis fails start-up with a clear error instead of a reconnect loop.
  await probeRedis(config.redis);
  await checkRedisSettings(config, connection, log);
  const redis = openRedisClient(config.redis, { maxRetriesPerRequest: null });
  redis.on('error', (error: Error) => log.warn({ err: error.message }, 'redis connection error; reconnecting'));
  stops.push(() => closeRedis(redis));
  // Refuse to run on records a newer release wrote (a downgrade); else record this release's schema, and
  // on a Redis Cluster move an older release's records to their clusters' tags, now and while it may still run.
  const { previous: previousSchema, keyMover } = await claimRecords(config, redis, new RecordKeys(recordPrefix), log, keyMoveIntervalMs);
  stops.push(() => keyMover.stop());
  const statusStore = new StatusStore({ redis, prefix: recordPrefix, indexesClusters: config.role !== 'agent', copyToSharedName: () => keyMover.olderReleaseRuns });
  // Off unless configured (no SDK loaded); stopped last, so the spans of the final runs are sent.
  const tracer = await startTracing(config.tracing);
  stops.push(() => tracer.stop());
  const metrics = new ReconcilerMetrics(new CommitClock({ redis, keys: statusStore.keys }));
  const clusters = await connectClusters(config.clusters, markedKubeObserver(metrics.kubeObserver, mark));
  stops.push(() => clusters.close());
  // After a Redis loss, a source's first poll rebuilds its records from the owner labels in its clusters.
  const rebuild = recordsRebuild({ redis, statusStore, connections: clusters.main, log });
  await rebuild.afterSchemaClaim(previousSchema);
  // Config-file clusters, and Cluster objects as they come and go: names and targets are live lists.
  const registry = new ClusterRegistry(config.clusters);
  const clusterNames = registry.names;
  // The clusters this process works on: all but those agents serve (an agent's config lists only its own).
  const servedNames = [...clusterNames].filter((name) => !config.clusters.some((cluster) => cluster.name === name && cluster.agent));
  const kinds = createDefaultRegistry();
  const clusterTargets = registry.targets;
  const placement = new PlacementCache();
  // Commit statuses on the sources' Git hosts: stopped last, after the workers whose runs feed it.
  const commitStatuses = startCommitStatuses({
    gitHosts: config.gitHosts, redis, keys: statusStore.keys, log,
    statusOf: (cluster, objectKey) => statusStore.get(cluster, objectKey),
    connectionFor: (cluster) => connectionOf(clusters.main, cluster),
    onPosted: (provider, ok) => metrics.gitHostPosted(provider, ok),
  });
  stops.push(() => commitStatuses.stop());
  // One status per wave of a rollout, from each record the rollout driver writes.
  const waveStatuses = startRolloutCommitStatuses({ gitHosts: config.gitHosts, connectionFor: (cluster) => connectionOf(clusters.main, cluster), log, onPosted: (provider, ok) => metrics.gitHostPosted(provider, ok) });
  stops.push(() => waveStatuses.stop());

  const cacheRoot = join(config.cacheDir, `${config.role}-${process.pid}`);
  const rendering = unitRendering(config, (cluster) => connectionOf(clusters.main, cluster), registry);
  stops.push(() => closeRendering(rendering));
  // Said once at start: whether renderers run in namespaces of their own (a warning and a metric if not).
  if (rendering) reportRenderSandbox(log, metrics);
  const sources = new Map(config.sources.map((spec) => [spec.name, new GitSource({ spec, cacheDir: join(cacheRoot, spec.name), ...credentialsOf(config, spec), ...(rendering ? { rendering: sourceRendering(rendering, config.render.sops, spec.name) } : {}) })]));
  for (const source of sources.values()) await source.open();
  stops.push(async () => {
    for (const source of sources.values()) await source.close();
    await rm(cacheRoot, { recursive: true, force: true });
  });

  // Sources of Source objects come and go at runtime; a deleted one is retiring until its objects are pruned.
  const retiring = new Set<string>();
  const queues = new ReconcileQueues({ connection, prefix: config.redisPrefix, hashTag, clusters: clusterNames });
  await queues.start();
  stops.push(() => queues.close());
  metrics.start({ queues, statusStore, clusters: clusterNames, sourceCacheDir: (source) => join(cacheRoot, source) });

  // Sources with a rollout policy: the driver enqueues each wave's clusters, not the poll (docs/rollouts.md).
  const rolloutPolicyAt = gitRolloutPolicies(sources, config.rollouts);
  const pendingPreviews = new PendingPreviews({ redis, keys: statusStore.keys, log });
  const rollouts = rolloutDriver({
    policies: config.rollouts, policyAt: rolloutPolicyAt, redis, statusStore, sources, placement, clusters: () => clusterTargets, queues, log,
    holdOf: rolloutHoldOf({ redis, keys: statusStore.keys, windows: config.syncWindows, clusters: () => clusterTargets, clock }),
    owner: `${config.role}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    driver: { ...rolloutOptions, onNotice: (source, notice) => { metrics.rolloutNotice(source, notice); pendingPreviews.notice(source, notice.kind); rolloutOptions?.onNotice?.(source, notice); }, onRecord: (record) => { waveStatuses.recorded(record); rolloutOptions?.onRecord?.(record); } },
  });
  // Source objects are known before any worker takes a job that names one.
  const poller = !pollingRoles.has(config.role) ? undefined : new Poller({
    redis,
    sources: [...sources.values()].map((source) => markedPolls(metrics.instrument(source), mark)),
    prefix: recordPrefix,
    tracer,
    onChanges: async (result, span) => {
      mark('poll-read', { source: result.source, revision: result.revision });
      const routed = await routePoll(await rebuild.beforeRoute(result), { source: sources.get(result.source)!, placement, clusters: clusterTargets, statusStore });
      // A source that rolls out in waves gets its jobs from the driver, wave by wave.
      const jobs = (await rollouts.governs(result.source, result.revision)) ? [] : routed;
      rollouts.wakeFor(result.source);
      mark('jobs-routed', { source: result.source, revision: result.revision });
      await metrics.changesFound(result, jobs);
      await commitStatuses.pickedUp(result.source, result.revision, jobs);
      await enqueueTraced(queues, jobs, span);
      mark('jobs-enqueued', { source: result.source, revision: result.revision });
      log.info({ source: result.source, revision: result.revision, changes: result.changes.length, errors: result.errors.length, jobs: jobs.length }, 'poll found changes');
      for (const problem of result.errors) log.warn({ source: result.source, problem }, 'source problem');
    },
    onError: (source, error) => log.warn({ source, err: messageOf(error) }, 'poll failed'),
    onRecorded: (source) => {
      // The delivered revision is recorded now: the driver starts its rollout at once.
      rollouts.wakeFor(source);
      void recordOnSource(source);
    },
  });
  const sourceObjects = config.sourceObjects.enabled ? await startSourceObjects({
    management: connectionOf(clusters.main, config.sourceObjects.cluster),
    namespaces: config.sourceObjects.namespaces,
    sources, retiring, ...(poller ? { poller } : {}),
    instrument: (source) => metrics.instrument(source),
    cacheRoot, ...(rendering ? { rendering: (name: string, own: SourceObjectKeys) => sourceRendering(rendering, config.render.sops, name, own) } : {}),
    redis, statusStore, queues, clusters: clusterNames,
    rules: sourceObjectRules(config.sourceObjects),
    log,
  }) : undefined;
  if (sourceObjects) stops.push(() => sourceObjects.stop());
  // A poll's record goes on to its Source object's status (config-file sources have none).
  async function recordOnSource(source: string): Promise<void> {
    if (!sourceObjects) return;
    const record = await readSourceStatus(redis, statusStore.keys, source);
    await sourceObjects.recorded(source, record).catch((error: unknown) => log.warn({ source, err: messageOf(error) }, 'Source status write failed'));
  }
  // What a worker runs for a cluster added at runtime; the watch caches of config-file clusters and of Cluster objects.
  let work: ClusterWork | undefined;
  const owned: { watches?: OwnedWatches; objects?: RunningClusterObjects } = {};
  if (config.role !== 'poller') {
    const waits = new DependencyWaits({ redis, prefix: recordPrefix, enqueue: (job) => queues.enqueue(job) });
    const desired = gitDesiredState(sources, placement, clusterTargets, retiring, rolloutTargets(redis, statusStore.keys, config.rollouts, rolloutPolicyAt));
    const headOf = async (source: string) => {
      const recorded = await readSourceStatus(redis, statusStore.keys, source);
      return recorded.head ?? recorded.revision;
    };
    // The owned-object watches start after the workers; until then, reads go to the API server.
    const driftPrevention = new PolicyKeeper({ connectionFor: (cluster) => connectionOf(clusters.main, cluster), rules: config.driftPrevention, log });
    stops.push(() => driftPrevention.stop());
    const deps: PipelineDependencies = {
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
      kinds,
      healthRules: withHealthRules(compileHealthRules(config.objectHealth.rules, 'objectHealth.rules')),
      statusStore,
      cacheFor: (cluster) => owned.watches?.cacheFor(cluster) ?? owned.objects?.cacheFor(cluster),
      log,
      observer: bothObservers(metrics.observer, commitStatuses.observer),
      tracer,
      pruneHolds: new PruneHolds(redis, recordPrefix),
      // Read at every run: an operator's freeze stops the next write to the cluster.
      freezeOf: (cluster) => readClusterFreeze(redis, statusStore.keys, cluster),
      // The operator's windows from tidemark.yaml, judged at every run; an operator's reconcile passes one that allows manual syncs.
      ...windowDependencies({ windows: config.syncWindows, clusters: () => clusterTargets, clock }, (cluster, objectKey) => takeSyncWindowPass(redis, statusStore.keys, cluster, objectKey)),
      ordering: waits,
      // Records from before this start get a full run first: this release or config may render differently.
      options: { syncWindowRecheckMs: config.syncWindowRecheckMs, resyncIntervalMs: config.resyncIntervalMs, fullCheckIntervalMs: config.fullCheckIntervalMs, fullCheckAfter: new Date(), dependencyRecheckMs: config.dependencyRecheckMs, progressingRequeueMs: config.progressingRequeueMs, healthTimeoutMs: config.objectHealth.timeoutMs, builtinCrdSources: builtinCrdSources(config) },
    };
    const secret = config.conversionWebhook.secret;
    const store = secret ? new SecretCertificateStore(connectionOf(clusters.main, secret.cluster), secret.namespace, secret.name) : undefined;
    const conversion = await startConversionWebhook(config.conversionWebhook, kinds, log, store);
    stops.push(() => conversion.stop());
    const crdOptions = {
      conversion: () => conversion.conversion(),
      migration: { objectsPerSecond: config.conversionWebhook.migrationObjectsPerSecond, onProgress: (progress: Parameters<typeof metrics.storageMigration>[0]) => metrics.storageMigration(progress) },
      ownership: { gitManaged: new Set(Object.keys(builtinCrdSources(config))) },
    };
    const crds = keepInstallingBuiltinCrds(clusters.main, kinds, log, crdOptions);
    stops.push(() => crds.stop());
    // A built-in CRD deleted or changed by hand is installed again at once, not at the next start.
    const crdWatch = watchBuiltinCrds({ clusters: clusters.main, crdNames: kinds.list().map((plugin) => plugin.crd.metadata.name), reinstall: () => crds.reinstall(), log });
    stops.push(() => crdWatch.stop());
    conversion.keepCurrent(() => crds.reinstall());
    const workerOptions = {
      connection,
      prefix: config.redisPrefix,
      hashTag,
      defaults: { concurrency: config.concurrency },
      // Ready objects wait for their resync in a schedule; unchanged ones are answered in batches, without a job.
      resync: {
        intervalMs: config.resyncIntervalMs, unchanged: (jobs) => unchangedJobs(jobs, deps), enqueue: (job) => queues.enqueue(job),
        onSwept: (cluster, unchanged, changed) => metrics.resyncSwept(cluster, unchanged, changed),
      },
      onError: (error: Error) => log.warn({ err: error.message }, 'queue worker error'),
    } satisfies Omit<ReconcileWorkersOptions, 'clusters'>;
    stops.push(await startWorkersOn(servedNames, workerOptions, markedRuns(deps, mark)));
    // Previews of refs that are not merged: the pipeline's readers, dry-runs only.
    // They dry-run on the hub's own clusters; an agent, which sees one cluster, takes no preview jobs.
    const previewTargets = clusterTargets.filter((target) => config.role !== 'agent' && servedNames.includes(target.name));
    const previews = await startPreviewJobs({
      connection, queuePrefix: config.redisPrefix, hashTag, redis, keys: statusStore.keys, sources, clusters: previewTargets, cacheRoot, log,
      commentOn: previewComments(config.gitHosts, deps.connectionFor, log, config.render.sops.trustedSources),
      render: { connectionFor: deps.connectionFor, tenancyFor: deps.tenancyFor, driftPolicyFor: deps.driftPolicyFor, kinds, statusStore, options: { builtinCrdSources: builtinCrdSources(config) } },
    });
    stops.push(() => previews.stop());
    // Per cluster: CRD wake-ups, watches and health checks; config-file clusters now, Cluster objects as they come.
    const partsContext = { config, kinds, statusStore, queues, redis, waits, log };
    const parts = startClusterParts(clusters.main, partsContext);
    owned.watches = parts.owned;
    stops.push(() => parts.stop());
    work = {
      async start(name, cluster) {
        const one = new Map([[name, cluster]]);
        const clusterWorkers = new ReconcileWorkers({ ...workerOptions, clusters: [name] });
        await clusterWorkers.start(markedRuns(deps, mark));
        const clusterCrds = keepInstallingBuiltinCrds(one, kinds, log, crdOptions);
        const clusterParts = startClusterParts(one, partsContext);
        return {
          cacheFor: (cacheCluster) => clusterParts.cacheFor(cacheCluster),
          async stop() {
            await clusterParts.stop();
            clusterCrds.stop();
            await clusterWorkers.close();
          },
        };
      },
    };
    // Time held per cluster for the metric, and a wake-up the moment a window lets go.
    const windows = startSyncWindowMonitor({
      windows: config.syncWindows, clusters: () => clusterTargets, clock, log,
      intervalMs: Math.min(10_000, config.syncWindowRecheckMs),
      onLook: (cluster, held, seconds) => metrics.syncWindowHeld(cluster, held, seconds),
      onOpened: (cluster) => requeueCluster(cluster, { redis, statusStore, queues }),
    });
    stops.push(() => windows.stop());
    // An hour of queue depth, run durations and failing objects per cluster, for the dashboard's sparklines (the hub samples an agent's cluster).
    if (config.role !== 'agent') {
      const series = startClusterSeries({ queues, redis, keys: statusStore.keys, log });
      stops.push(() => series.stop());
    }
    // Alerts on transitions, delivered through queues of their own: a slow receiver never holds a worker.
    const notifications = await startNotifications({ config, connection, hashTag, redis, recordPrefix, statusStore, connectionFor: deps.connectionFor, syncWindowHoldOf: holdForEverySource({ windows: config.syncWindows, clusters: () => clusterTargets, clock }), log });
    stops.push(() => notifications.stop());
  }

  // Clusters from Cluster objects, started and stopped at runtime beside the config-file ones.
  stops.push(await startFleet(config, owned, { registry, clusters, work, poller, sources, placement, observe: markedKubeObserver(metrics.kubeObserver, mark), redis, statusStore, queues, log }));
  // Heartbeats: an agent writes its own; a hub (any role) watches those of the clusters agents serve.
  stops.push(await startAgentSide({ config, clusters: clusters.main, redis, queues, statusStore, log }));
  // A CRD Established or removed on a cluster may change what its Helm units render.
  stops.push(watchRenderCapabilities(rendering, clusters.main, () => sources.keys(), poller, log));
  stops.push(followFleet(rendering, { registry, variables: configVariables(config), sources: () => sources.keys(), poller, log }));
  if (poller) {
    await poller.start();
    stops.push(() => poller.stop());
    await rollouts.start();
    stops.push(() => rollouts.stop());
    const resync = startFullResync({ redis, sources, route: { placement, clusters: clusterTargets, statusStore }, queues, intervalMs: config.fullResyncIntervalMs, log });
    stops.push(() => resync.stop());
  }

  // Pushes to other branches and pull requests announced by a webhook are previewed by the workers.
  const previews = await startWebhookPreviews(poller !== undefined, { connection, prefix: config.redisPrefix, hashTag }, sources, stops);
  pendingPreviews.attach(previews);
  const http = await startHttpServer({
    config, log, poller, redis, recordPrefix, metrics, previews, mark, tracer,
    ...(sourceObjects ? { findWebhook: (source: string) => sourceObjects.webhook(source), forbiddenSourceWatches: () => sourceObjects.forbiddenWatches() } : {}),
  });
  stops.push(() => http.close());
  // Runs first on stop. The main client waits for Redis forever while running (maxRetriesPerRequest
  // null); a stop must not, when Redis has gone (a terminal's Ctrl-C reaches redis-server too).
  stops.push(() => endWhenGone(redis));
  log.info({ role: config.role, sources: [...sources.keys()], clusters: clusterNames, http: http.address }, 'tidemark reconciler started');
  return { statusStore, queues, http };
}

/**
 * enqueueTraced queues a poll's jobs in an `enqueue` span under the poll's; each job carries that
 * span's traceparent (only when tracing is on), so its run continues the trace in a worker.
 */
async function enqueueTraced(queues: ReconcileQueues, jobs: readonly ReconcileJob[], poll: TraceSpan): Promise<void> {
  const span = poll.child('enqueue', { 'tidemark.jobs': jobs.length });
  try {
    const traceparent = span.traceparent;
    for (const job of jobs) await queues.enqueue(traceparent ? { ...job, traceparent } : job);
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}

/** startFleet serves Cluster objects where tidemark.yaml enables them; it gives their stop (nothing to stop otherwise). */
async function startFleet(config: ReconcilerConfig, owned: { objects?: RunningClusterObjects }, wiring: Omit<ClusterObjectsWiring, 'config' | 'management' | 'work' | 'routing'> & { work: ClusterWork | undefined; poller: Poller | undefined; sources: ReadonlyMap<string, GitSource>; placement: PlacementCache }): Promise<() => Promise<void>> {
  if (!config.clusterObjects.enabled) return async () => undefined;
  const { work, poller, sources, placement, ...rest } = wiring;
  const running = await startClusterObjects({
    ...rest, config: config.clusterObjects, management: connectionOf(wiring.clusters.main, config.clusterObjects.cluster),
    // Routing happens where polls are routed; a worker-only process only serves the clusters' queues.
    ...(work ? { work } : {}), ...(poller ? { routing: { sources, placement } } : {}),
  });
  owned.objects = running;
  return () => running.stop();
}

/** startWorkersOn runs the pipeline on the clusters' queues; a hub whose clusters agents all serve runs none. It returns the stop. */
async function startWorkersOn(clusters: readonly string[], options: Omit<ReconcileWorkersOptions, 'clusters'>, run: Parameters<ReconcileWorkers['start']>[0]): Promise<() => Promise<void>> {
  if (clusters.length === 0) return async () => undefined;
  const workers = new ReconcileWorkers({ ...options, clusters: [...clusters] });
  await workers.start(run);
  return () => workers.close();
}

/** noMark is the mark of a deployment: nothing is told. */
function noMark(): void {}

/** markedPolls tells `mark` when each poll of the source starts. */
function markedPolls(source: PolledSource, mark: PushPathMark): PolledSource {
  return { name: source.name, spec: source.spec, poll: (options) => {
    mark('poll-started', { source: source.name });
    return source.poll(options);
  } };
}

/** markedRuns is the worker's handler, telling `mark` when each run starts and ends. */
function markedRuns(deps: PipelineDependencies, mark: PushPathMark): (job: ReconcileJob, signal: AbortSignal) => Promise<ReconcileOutcome> {
  return async (job, signal) => {
    const detail = { source: job.source, objectKey: job.objectKey, revision: job.revision };
    mark('job-started', detail);
    try {
      return await reconcile(job, deps, signal);
    } finally {
      mark('job-finished', detail);
    }
  };
}

/** markedKubeObserver passes every API response to the metrics and to `mark`. */
function markedKubeObserver(observer: ReconcilerMetrics['kubeObserver'], mark: PushPathMark): ReconcilerMetrics['kubeObserver'] {
  return (cluster) => {
    const observe = observer(cluster);
    return (event) => {
      observe?.(event);
      mark('kube-response', { request: event });
    };
  };
}

/** credentialsOf re-reads a config-file source's token or password file when it changes. */
function credentialsOf(config: ReconcilerConfig, spec: SourceSpec): Pick<GitSourceOptions, 'credentials'> {
  const file = config.sourceCredentialFiles[spec.name];
  return file && spec.auth ? { credentials: fileCredentials(spec.auth, file, `source ${spec.name}`) } : {};
}

/** builtinCrdSources maps each built-in CRD a source may manage to the sources allowed to. */
function builtinCrdSources(config: ReconcilerConfig): Record<string, string[]> {
  const allowed: Record<string, string[]> = {};
  for (const source of config.sources) {
    for (const crd of source.manageBuiltinCrds) (allowed[crd] ??= []).push(source.name);
  }
  return allowed;
}

/** bothObservers tells each observer of every run (metrics, then commit statuses). */
function bothObservers(first: PipelineObserver, second: PipelineObserver): PipelineObserver {
  return { reconciled: (observation) => { first.reconciled(observation); second.reconciled(observation); } };
}

function connectionOf<T>(map: Map<string, T>, cluster: string): T {
  const connection = map.get(cluster);
  if (!connection) throw new TerminalError('UnknownCluster', `job names cluster "${cluster}", which is not configured; add it to the clusters list.`);
  return connection;
}

/** closeRendering removes the written input trees the unit renderer keeps in the temporary folder. */
async function closeRendering(rendering: UnitRendering | undefined): Promise<void> {
  if (rendering) await rendering.renderer.close();
}
