// A whole reconciler (poller, BullMQ queues, workers, watches) on a rig control plane and Redis,
// reading one Git repository, for the ordering suites: waits and wake-ups only show end to end.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ClusterConnection } from '@tidemark/cluster';
import { findCondition, type ObjectStatus } from '@tidemark/contracts';
import { kubectl, startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';

export interface OrderingStack {
  /** The first source's working copy. */
  repo: WorkingCopy;
  /** Every source's working copy, by source name. */
  repos: Record<string, WorkingCopy>;
  reconciler: RunningReconciler;
  connection: ClusterConnection;
  cluster: string;
  /** status reads an object's status record. */
  status(objectKey: string): Promise<ObjectStatus | undefined>;
  /** ready tells whether an object's record says Ready=True at `revision`. */
  readyAt(objectKey: string, revision: string): Promise<boolean>;
  /** readyCondition is the record's Ready condition as one line, `status reason: message`. */
  readyCondition(objectKey: string): Promise<string | undefined>;
  stop(): Promise<void>;
}

export interface OrderingStackOptions {
  kubeconfigPath: string;
  kubeconfig: string;
  redisUrl: string;
  /** The waiting objects' own recheck: long, so only a wake-up can start them within a test. */
  dependencyRecheckMs: number;
  cluster?: string;
  /** tidemark.yaml's objectHealth section: CEL rules and the health timeout. */
  objectHealth?: Record<string, unknown>;
  /** The sources, each its own repository, with any extra fields of its tidemark.yaml entry. @defaultValue { ordering: {} } */
  sources?: Record<string, Record<string, unknown>>;
  /** More top-level fields of tidemark.yaml (resyncIntervalMs, …). */
  config?: Record<string, unknown>;
}

export async function startOrderingStack(options: OrderingStackOptions): Promise<OrderingStack> {
  const cluster = options.cluster ?? 'shared';
  const workDir = await mkdtemp(join(tmpdir(), 'tidemark-ordering-'));
  let git: GitServer | undefined;
  let reconciler: RunningReconciler | undefined;
  try {
    git = await startGitServer();
    const repos: Record<string, WorkingCopy> = {};
    const sources: Record<string, unknown>[] = [];
    for (const [name, extra] of Object.entries(options.sources ?? { ordering: {} })) {
      const remote = await git.createRepository(name);
      repos[name] = await git.workingCopy(name);
      await repos[name].write('README.md', `${name}: ordering suite\n`);
      await repos[name].commitAndPush('start');
      sources.push({ name, url: remote, ref: { branch: 'main' }, intervalMs: 1_000, jitter: 0, ...extra });
    }
    const repo = Object.values(repos)[0]!;
    await writeFile(join(workDir, 'tidemark.yaml'), stringify({
      redis: { url: options.redisUrl, prefix: `ord${randomUUID().slice(0, 8)}` },
      cacheDir: join(workDir, 'cache'),
      sources,
      clusters: [{ name: cluster, kubeconfig: options.kubeconfigPath }],
      http: { port: 0, host: '127.0.0.1' },
      dependencyRecheckMs: options.dependencyRecheckMs,
      ...(options.objectHealth ? { objectHealth: options.objectHealth } : {}),
      ...options.config,
      conversionWebhook: { host: '127.0.0.1', port: 0 },
    }));
    reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml') }), createLogger('error'));
    const connection = ClusterConnection.connect({ cluster, kubeconfig: options.kubeconfig });
    const started = { git, reconciler };
    const status = (objectKey: string) => started.reconciler.statusStore.get(cluster, objectKey);
    return {
      repo, repos, reconciler, connection, cluster, status,
      async readyAt(objectKey, revision) {
        const record = await status(objectKey);
        return record?.lastAppliedRevision === revision && findCondition(record.conditions, 'Ready')?.status === 'True';
      },
      async readyCondition(objectKey) {
        const condition = findCondition((await status(objectKey))?.conditions, 'Ready');
        return condition ? `${condition.status} ${condition.reason}: ${condition.message}` : undefined;
      },
      async stop() {
        connection.close();
        await started.reconciler.stop();
        await started.git.stop();
        await rm(workDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await reconciler?.stop();
    await git?.stop();
    await rm(workDir, { recursive: true, force: true });
    throw error;
  }
}

/** writeStatusByHand plays a custom resource's operator: it writes the object's status subresource by hand. */
export async function writeStatusByHand(kubeconfigPath: string, resource: string, namespace: string, name: string, status: Record<string, unknown>): Promise<void> {
  await kubectl(kubeconfigPath, ['patch', resource, name, '-n', namespace, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
}
