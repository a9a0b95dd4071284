import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { idle, readSourceStatus, runnable, Runnables, messageOf, type Runnable } from '@tidemark/contracts';
import { fileCredentials, GitSource, type GitSourceOptions, type SourceSpec } from '@tidemark/git-source';
import { createDefaultRegistry } from '@tidemark/kinds';
import { PlacementCache } from '@tidemark/placement';
import { startTracing } from '@tidemark/tracing';
import { probeSandbox } from '@tidemark/render';
import { createCommitStatuses, createRolloutCommitStatuses } from '@tidemark/git-host';
import { gitRolloutPolicies, rolloutDriver, type RolloutWiring } from '@tidemark/fanout';
import { ReconcileQueues, redisGoneGuard, sharedRedis } from '@tidemark/queue';
import { CommitClock, StatusStore, StatusTally, type ClusterKeysMover } from '@tidemark/status-store';
import { checkRedisSettings, claimRecords } from './redis-records';
import { ClusterRegistry } from '@tidemark/cluster-objects';
import type { ReconcilerConfig } from './config';
import { connectClusters } from './clusters';
import { recordsRebuild } from './records-rebuild';
import { agentRebuildPart } from './agent-rebuild';
import { startClusterObjects } from './cluster-objects';
import { startHttpServer, type HttpServer } from './http-server';
import { startAgentSide } from './agent-side';
import { ReconcilerMetrics } from './metrics/reconciler-metrics';
import { reportRenderSandbox } from './render-sandbox-report';
import { configVariables, sourceRendering, unitRendering, watchRenderCapabilities, type SourceObjectKeys } from './unit-rendering';
import { followFleet } from './render-fleet';
import { rolloutHoldOf } from './rollout-holds';
import { PendingPreviews } from './pending-previews';
import { startSourceObjects } from './source-objects';
import { sourceObjectRules } from './source-objects-config';
import { startWebhookPreviews } from './preview-jobs';
import type { PushPathMark } from './push-path-marks';
import { pollerFor, pollerSide, pollingRoles } from './poller-side';
import { workerSide } from './worker-side';
import { connectionOf, markedKubeObserver, noMark, type Wiring } from './wiring';

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
  const parts = new Runnables(log);
  try {
    const running = await wire(config, log, parts, options);
    return { ...running, stop: () => parts.stop() };
  } catch (error) {
    await parts.stop();
    throw error;
  }
}

/**
 * wire is the reconciler as a list of parts, each started after the one before and stopped in
 * reverse: what a part starts, the parts after it use. A role leaves some out (idle).
 */
async function wire(config: ReconcilerConfig, log: Logger, parts: Runnables, options: StartReconcilerOptions): Promise<Omit<RunningReconciler, 'stop'>> {
  const mark = options.mark ?? noMark;
  // Refuse to run on records a newer release wrote (a downgrade); else record this release's schema, and
  // on a Redis Cluster move an older release's records to their clusters' tags, now and while it may still run.
  let keyMover: ClusterKeysMover | undefined;
  const shared = await parts.start(sharedRedis({
    endpoint: config.redis, prefix: config.redisPrefix, allowEviction: config.allowEviction, writer: `reconciler ${process.pid}`, log,
    checkSettings: (connection) => checkRedisSettings(config, connection, log),
    claim: async (client, keys) => {
      const claimed = await claimRecords(config, client, keys, log, options.keyMoveIntervalMs ?? 60_000);
      keyMover = claimed.keyMover;
      return claimed;
    },
  }));
  const mover = await parts.start(runnable('cluster keys mover', () => keyMover!));
  const { redis } = shared;
  const statusStore = new StatusStore({ redis, prefix: shared.recordPrefix, indexesClusters: config.role !== 'agent', copyToSharedName: () => mover.olderReleaseRuns });
  // Off unless configured (no SDK loaded); stopped last, so the spans of the final runs are sent.
  const tracer = await parts.start(runnable('tracing', () => startTracing(config.tracing)));
  const metrics = new ReconcilerMetrics(new CommitClock({ redis, keys: statusStore.keys }));
  const clusters = await parts.start(runnable('clusters', () => connectClusters(config.clusters, markedKubeObserver(metrics.kubeObserver, mark))));
  // After a Redis loss, a source's first poll rebuilds its records from the owner labels in its clusters (swept from now on where this role polls).
  const rebuild = recordsRebuild({ redis, statusStore, connections: clusters.main, log, sweepAhead: pollingRoles.has(config.role) });
  await rebuild.afterSchemaClaim(shared.previousSchema);
  // Config-file clusters, and Cluster objects as they come and go: names and targets are live lists.
  const registry = new ClusterRegistry(config.clusters);
  const placement = new PlacementCache();
  // Commit statuses on the sources' Git hosts: stopped last, after the workers whose runs feed it.
  const gitHostDeps = { connectionFor: (cluster: string) => connectionOf(clusters.main, cluster), log, onPosted: (provider: string, ok: boolean) => metrics.gitHostPosted(provider, ok) };
  const commitStatuses = await parts.start(createCommitStatuses({ ...gitHostDeps, redis, keys: statusStore.keys }, config.gitHosts));
  // One status per wave of a rollout, from each record the rollout driver writes.
  const waveStatuses = await parts.start(createRolloutCommitStatuses(gitHostDeps, config.gitHosts));
  const cacheRoot = join(config.cacheDir, `${config.role}-${process.pid}`);
  const { rendering } = await parts.start(renderingPart(config, log, metrics, (cluster) => connectionOf(clusters.main, cluster), registry));
  const sources = await parts.start(gitSources(config, cacheRoot, rendering));
  const queues = await parts.start(runnable('queues', async () => {
    const started = new ReconcileQueues({ connection: shared.connection, prefix: config.redisPrefix, hashTag: shared.hashTag, clusters: registry.names });
    await started.start();
    return started;
  }));
  // The gauges' counts of records, kept from the status channel (its subscriber opens at the first scrape).
  const statusCounts = await parts.start(runnable('status tally', () => new StatusTally({ redis, keys: statusStore.keys })));
  metrics.start({ queues, statusCounts, clusters: registry.names, sourceCacheDir: (source) => join(cacheRoot, source) });
  // An agent rebuilds its own cluster's records after a Redis loss, before its first run of each source.
  const agentRebuild = await parts.start(agentRebuildPart(config, { clusters: clusters.main, redis, statusStore, queues, sources, log }));
  const rolloutPolicyAt = gitRolloutPolicies(sources, config.rollouts);
  const pendingPreviews = new PendingPreviews({ redis, keys: statusStore.keys, log });
  const w: Wiring = {
    config, log, mark, clock: options.clock, shared, statusStore, tracer, metrics, clusters, rebuild, ...(agentRebuild ? { beforeRun: agentRebuild.before } : {}), placement, commitStatuses, cacheRoot, rendering, sources, queues,
    rolloutPolicyAt, clusterNames: registry.names, clusterTargets: registry.targets, kinds: createDefaultRegistry(), retiring: new Set(), owned: {},
    servedNames: [...registry.names].filter((name) => !config.clusters.some((cluster) => cluster.name === name && cluster.agent)),
    // Sources with a rollout policy: the driver enqueues each wave's clusters, not the poll (docs/rollouts.md); started with the poller.
    rollouts: rolloutDriver({
      policies: config.rollouts, policyAt: rolloutPolicyAt, redis, statusStore, sources, placement, clusters: () => registry.targets, queues, log,
      holdOf: rolloutHoldOf({ redis, keys: statusStore.keys, windows: config.syncWindows, clusters: () => registry.targets, clock: options.clock }),
      owner: `${config.role}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
      driver: {
        ...options.rollouts,
        onNotice: (source, notice) => { metrics.rolloutNotice(source, notice); pendingPreviews.notice(source, notice.kind); options.rollouts?.onNotice?.(source, notice); },
        onRecord: (record) => { waveStatuses.recorded(record); options.rollouts?.onRecord?.(record); },
      },
    }),
  };
  // A poll's record goes on to its Source object's status (config-file sources have none).
  const sourceObjectsOf: { started?: Awaited<ReturnType<typeof startSourceObjects>> } = {};
  const poller = pollerFor(w, (source) => void recordOnSource(w, sourceObjectsOf.started, source));
  // Source objects are known before any worker takes a job that names one.
  sourceObjectsOf.started = await parts.start(sourceObjectsPart(w, poller));
  const { work } = await parts.start(workerSide(w));
  // Clusters from Cluster objects, started and stopped at runtime beside the config-file ones.
  await parts.start(fleetPart(w, registry, work ? { work } : {}, poller));
  // Heartbeats: an agent writes its own; a hub (any role) watches those of the clusters agents serve.
  await parts.start(runnable('agent side', () => startAgentSide({ config, clusters: clusters.main, redis, queues, statusStore, sources, log })));
  // A CRD Established or removed on a cluster may change what its Helm units render.
  await parts.start(runnable('render capabilities', () => watchRenderCapabilities(rendering, clusters.main, () => sources.keys(), poller, log)));
  await parts.start(runnable('render fleet', () => followFleet(rendering, { registry, variables: configVariables(config), sources: () => sources.keys(), poller, log })));
  await parts.start(pollerSide(w, poller));
  // Pushes to other branches and pull requests announced by a webhook are previewed by the workers.
  const previews = await parts.start(runnable('webhook previews', () => startWebhookPreviews(poller !== undefined, { connection: shared.connection, prefix: config.redisPrefix, hashTag: shared.hashTag }, sources)));
  pendingPreviews.attach(previews);
  const started = sourceObjectsOf.started;
  const http = await parts.start(runnable('http', () => startHttpServer({
    config, log, poller, redis, recordPrefix: shared.recordPrefix, metrics, previews, mark, tracer,
    ...(started ? { findWebhook: (source: string) => started.webhook(source), forbiddenSourceWatches: () => started.forbiddenWatches() } : {}),
  })));
  // Runs first on stop: a stop must not wait for a Redis that has gone.
  await parts.start(redisGoneGuard(redis));
  log.info({ role: config.role, sources: [...sources.keys()], clusters: registry.names, http: http.address, parts: parts.names }, 'tidemark reconciler started');
  return { statusStore, queues, http };
}

/** renderingPart: the unit renderer (Helm, Kustomize) when configured; stop removes the input trees it wrote. */
function renderingPart(config: ReconcilerConfig, log: Logger, metrics: ReconcilerMetrics, connectionFor: Parameters<typeof unitRendering>[1], registry: ClusterRegistry): Runnable<{ rendering: ReturnType<typeof unitRendering>; stop(): Promise<void> }> {
  return runnable('unit rendering', () => {
    const rendering = unitRendering(config, connectionFor, registry);
    // Said once at start: whether renderers run in namespaces of their own (a warning and a metric if not).
    // Probed beside the rest of the start, not holding it.
    if (rendering) void probeSandbox().then((isolation) => reportRenderSandbox(log, metrics, isolation));
    return { rendering, stop: async () => { if (rendering) await rendering.renderer.close(); } };
  });
}

/** gitSources opens the config-file sources' Git caches; stop closes every source (Source objects' too) and removes the cache folder. */
function gitSources(config: ReconcilerConfig, cacheRoot: string, rendering: ReturnType<typeof unitRendering>): Runnable<Map<string, GitSource>> {
  const sources = new Map<string, GitSource>();
  const warming: Promise<unknown>[] = [];
  return {
    name: 'git sources',
    async start() {
      for (const spec of config.sources) sources.set(spec.name, new GitSource({ spec, cacheDir: join(cacheRoot, spec.name), ...credentialsOf(config, spec), ...(rendering ? { rendering: sourceRendering(rendering, config.render.sops, spec.name) } : {}) }));
      for (const source of sources.values()) await source.open();
      // Each head is fetched and read while the rest starts (CRDs, workers, watches), so the first poll finds it
      // done; nothing is applied from it before that poll, which still verifies it. A failure here is the poll's to report.
      for (const source of sources.values()) warming.push(source.warm().catch(() => undefined));
      return sources;
    },
    async stop() {
      await Promise.all(warming.splice(0));
      for (const source of sources.values()) await source.close();
      await rm(cacheRoot, { recursive: true, force: true });
    },
  };
}

/** sourceObjectsPart serves Source objects where tidemark.yaml enables them: they become sources of this process, without a restart. */
function sourceObjectsPart(w: Wiring, poller: ReturnType<typeof pollerFor>): Runnable<Awaited<ReturnType<typeof startSourceObjects>> | undefined> {
  const { config, rendering } = w;
  if (!config.sourceObjects.enabled) return idle('source objects');
  return runnable('source objects', () => startSourceObjects({
    management: connectionOf(w.clusters.main, config.sourceObjects.cluster),
    namespaces: config.sourceObjects.namespaces,
    sources: w.sources, retiring: w.retiring, ...(poller ? { poller } : {}),
    instrument: (source) => w.metrics.instrument(source),
    cacheRoot: w.cacheRoot, ...(rendering ? { rendering: (name: string, own: SourceObjectKeys) => sourceRendering(rendering, config.render.sops, name, own) } : {}),
    redis: w.shared.redis, statusStore: w.statusStore, queues: w.queues, clusters: w.clusterNames,
    rules: sourceObjectRules(config.sourceObjects),
    log: w.log,
  }));
}

/** recordOnSource puts a poll's record on its Source object's status (config-file sources have none). */
async function recordOnSource(w: Wiring, sourceObjects: Awaited<ReturnType<typeof startSourceObjects>> | undefined, source: string): Promise<void> {
  if (!sourceObjects) return;
  const record = await readSourceStatus(w.shared.redis, w.statusStore.keys, source);
  await sourceObjects.recorded(source, record).catch((error: unknown) => w.log.warn({ source, err: messageOf(error) }, 'Source status write failed'));
}

/** fleetPart serves Cluster objects where tidemark.yaml enables them. */
function fleetPart(w: Wiring, registry: ClusterRegistry, work: Pick<Parameters<typeof startClusterObjects>[0], 'work'>, poller: ReturnType<typeof pollerFor>): Runnable {
  const { config } = w;
  if (!config.clusterObjects.enabled) return idle('cluster objects');
  return runnable('cluster objects', async () => {
    const running = await startClusterObjects({
      registry, clusters: w.clusters, observe: markedKubeObserver(w.metrics.kubeObserver, w.mark), redis: w.shared.redis, statusStore: w.statusStore, queues: w.queues, log: w.log,
      config: config.clusterObjects, management: connectionOf(w.clusters.main, config.clusterObjects.cluster),
      // Routing happens where polls are routed; a worker-only process only serves the clusters' queues.
      ...work, ...(poller ? { routing: { sources: w.sources, placement: w.placement } } : {}),
    });
    w.owned.objects = running;
    return running;
  });
}

/** credentialsOf re-reads a config-file source's token or password file when it changes. */
function credentialsOf(config: ReconcilerConfig, spec: SourceSpec): Pick<GitSourceOptions, 'credentials'> {
  const file = config.sourceCredentialFiles[spec.name];
  return file && spec.auth ? { credentials: fileCredentials(spec.auth, file, `source ${spec.name}`) } : {};
}
