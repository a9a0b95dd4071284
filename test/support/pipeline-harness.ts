// A harness that runs the real pipeline against the rig: a real Git server and GitSource,
// the shared kube-apiserver, and a Redis-backed status store under a private prefix.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ClusterConnection, type KubeClientOptions } from '@tidemark/cluster';
import { groupOf, isReconcileFailure, TerminalError, type ReconcileJob, type ReconcileOutcome } from '@tidemark/contracts';
import { GitSource, parseSourceSpec, type PollResult, type UnitRendering } from '@tidemark/git-source';
import { createDefaultRegistry, type KindRegistry } from '@tidemark/kinds';
import { reconcile, type PipelineDependencies, type PipelineOptions, type SourceTenancy } from '@tidemark/pipeline';
import { PruneHolds, StatusStore } from '@tidemark/status-store';
import { PlacementCache } from '@tidemark/placement';
import { startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { gitDesiredState } from '@tidemark/fanout';
import { startOwnedWatches, type OwnedWatches } from '@tidemark/watches';

export interface PipelineHarness {
  cluster: string;
  connection: ClusterConnection;
  repo: WorkingCopy;
  source: GitSource;
  statusStore: StatusStore;
  kinds: KindRegistry;
  deps: PipelineDependencies;
  /** pushAndReconcile pushes the working copy, polls, and reconciles every changed object once. */
  pushAndReconcile(message: string): Promise<{ poll: PollResult; results: Map<string, ReconcileOutcome | Error> }>;
  reconcileKey(objectKey: string, reason?: ReconcileJob['reason']): Promise<ReconcileOutcome | Error>;
  /** reconcileAt reconciles one object at a revision the test polled itself. */
  reconcileAt(revision: string, objectKey: string, reason: ReconcileJob['reason']): Promise<ReconcileOutcome | Error>;
  /** requests counts the calls made to the API server so far (every identity, discovery included). */
  requests(): number;
  /** With `cache`: the owned-object watches that fill the cluster's watch cache (on a connection of their own, not counted), and the drift jobs they asked for. */
  watches?: OwnedWatches;
  wakes: ReconcileJob[];
  /**
   * cacheCaughtUp (with `cache`) waits until the watch cache has listed every managed kind and holds
   * each object of `objectKey` (the CR and its inventory) at least at the version its last run recorded.
   */
  cacheCaughtUp(objectKey: string): Promise<void>;
  /** waitForWake (with `cache`) waits until the owned-object watch has asked for a drift run of `objectKey`. */
  waitForWake(objectKey: string): Promise<void>;
  stop(): Promise<void>;
}

export interface PipelineHarnessOptions {
  kinds?: KindRegistry;
  pipeline?: PipelineOptions;
  rendering?: UnitRendering;
  pruneHolds?: boolean;
  tenancyFor?: (source: string) => SourceTenancy | undefined;
  onResponse?: KubeClientOptions['onResponse'];
  /** Read desired state as the reconciler does (libs/fanout's gitDesiredState): Placement rules place objects and name their identity. */
  placement?: boolean;
  /** Run the owned-object watches, on a connection of their own, and read through their watch cache. */
  cache?: boolean;
}

export async function startPipelineHarness(kubeconfig: string, redisUrl: string, options: PipelineHarnessOptions = {}): Promise<PipelineHarness> {
  const id = randomUUID().slice(0, 8);
  const cluster = 'shared';
  const git: GitServer = await startGitServer();
  const url = await git.createRepository(`pipeline-${id}`);
  const repo = await git.workingCopy(`pipeline-${id}`);
  const cacheDir = await mkdtemp(join(tmpdir(), 'tidemark-harness-cache-'));
  const spec = parseSourceSpec({ name: 'test', url, ref: { branch: 'main' }, intervalMs: 1000 }, 'harness');
  const source = new GitSource({ spec, cacheDir, ...(options.rendering ? { rendering: options.rendering } : {}) });
  await source.open();
  const redis = new Redis(redisUrl);
  const statusStore = new StatusStore({ redis, prefix: `test-${id}` });
  let requests = 0;
  const connection = ClusterConnection.connect({ cluster, kubeconfig, onResponse: (event) => { requests += 1; options.onResponse?.(event); } });
  const actions = connection.asManager('tidemark-actions');
  const kinds = options.kinds ?? createDefaultRegistry();
  const deps: PipelineDependencies = {
    connectionFor: () => connection,
    actionsConnectionFor: () => actions,
    desired: options.placement ? gitDesiredState(new Map([['test', source]]), new PlacementCache(), [{ name: cluster, labels: {} }]) : {
      async readObject(_source, revision, objectKey, cluster) {
        const found = await source.readObject(revision, objectKey, cluster);
        return found ? { object: found.object as never, path: found.path, line: found.line, ...(found.unit ? { unit: found.unit } : {}) } : undefined;
      },
    },
    kinds,
    statusStore,
    ...(options.tenancyFor ? { tenancyFor: options.tenancyFor } : {}),
    ...(options.pipeline ? { options: options.pipeline } : {}),
    // Mass-prune holds only where a suite asks: the suites remove most of their small repositories on purpose.
    ...(options.pruneHolds ? { pruneHolds: new PruneHolds(redis, `test-${id}`) } : {}),
  };
  let revision = '';
  const wakes: ReconcileJob[] = [];
  const watchConnection = options.cache ? ClusterConnection.connect({ cluster, kubeconfig }) : undefined;
  const watches = watchConnection ? startOwnedWatches({
    clusters: new Map([[cluster, watchConnection]]), statusStore, redis, refreshMs: 500,
    queues: { enqueue: async (job) => { wakes.push(job); } },
  }) : undefined;
  if (watches) deps.cacheFor = (name) => watches.cacheFor(name);

  // A run waiting for a dependency answers with a requeue; its record says it waits.
  const waiting = async (objectKey: string) => (await statusStore.get(cluster, objectKey))?.failure?.category === 'waiting';
  const reconcileKey = (objectKey: string, reason: ReconcileJob['reason'] = 'git-change') => reconcileAt(revision, objectKey, reason);
  const reconcileAt = async (at: string, objectKey: string, reason: ReconcileJob['reason']) => {
    revision = at;
    try {
      return await reconcile({ source: 'test', revision: at, cluster, objectKey, reason }, deps);
    } catch (error) {
      if (!isReconcileFailure(error)) throw error;
      return error;
    }
  };

  return {
    cluster, connection, repo, source, statusStore, kinds, deps,
    async pushAndReconcile(message) {
      await repo.commitAndPush(message);
      const poll = await source.poll();
      revision = poll.revision;
      const results = new Map<string, ReconcileOutcome | Error>();
      let pending = poll.changes.map((change) => ({ key: change.objectKey, reason: change.change === 'removed' ? 'git-removed' as const : 'git-change' as const }));
      // Like the queue: not-ready and transient failures (a namespace applied by a later job) are retried.
      for (let round = 0; round < 6 && pending.length > 0; round += 1) {
        const retry: typeof pending = [];
        for (const job of pending) {
          const result = await reconcileKey(job.key, job.reason);
          results.set(job.key, result);
          if ((result instanceof Error && !(result instanceof TerminalError)) || (await waiting(job.key))) retry.push(job);
        }
        pending = retry;
      }
      return { poll, results };
    },
    reconcileKey,
    reconcileAt,
    requests: () => requests,
    ...(watches ? { watches } : {}),
    wakes,
    async cacheCaughtUp(objectKey) {
      await watches!.ready();
      const cache = watches!.cacheFor(cluster)!;
      for (;;) {
        const record = await statusStore.get(cluster, objectKey);
        const objects = record ? [{ apiVersion: record.apiVersion, kind: record.kind, namespace: record.namespace, name: record.name }, ...record.inventory] : [];
        const caughtUp = record !== undefined && objects.every((object) => {
          const version = record.appliedVersions?.[`${groupOf(object.apiVersion)}/${object.kind}/${object.namespace}/${object.name}`]?.resourceVersion;
          return cache.lookup(object, version) !== undefined;
        });
        if (caughtUp) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async waitForWake(objectKey) {
      while (!wakes.some((job) => job.objectKey === objectKey && job.reason === 'drift')) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    async stop() {
      await watches?.stop();
      watchConnection?.close();
      await source.close();
      connection.close();
      redis.disconnect();
      await git.stop();
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
}
