// What the suites that run the real reconciler bundle against the rig share: its config file, the
// ConfigMaps they push, and what the API server's audit log and the queues say afterwards
// (replica-kills: three replicas on one Redis; app-failover: a Redis Cluster and a Sentinel failover).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { kubeUserAgent } from '@tidemark/cluster';
import type { ReconcileQueues } from '@tidemark/queue';
import { appliesByName, readAuditLog, type AuditLogMark, type ControlPlane, type WorkingCopy } from '@tidemark/testing';

/** ReconcilerConfigOptions: one source polled every second, one target cluster, the Redis section as a user writes it. */
export interface ReconcilerConfigOptions {
  /** The config's `redis` section: url, sentinel or cluster, and the prefix. */
  redis: Record<string, unknown>;
  workDir: string;
  /** Names the config file and the Git cache, one per process (as each pod has its own disk). */
  name: string;
  source: string;
  repoUrl: string;
  cluster: string;
  kubeconfigPath: string;
}

/** writeReconcilerConfig writes the reconciler's tidemark.yaml into workDir and returns its path. */
export async function writeReconcilerConfig(options: ReconcilerConfigOptions): Promise<string> {
  const path = join(options.workDir, `${options.name}.yaml`);
  await writeFile(path, stringify({
    redis: options.redis,
    cacheDir: join(options.workDir, `cache-${options.name}`),
    sources: [{ name: options.source, url: options.repoUrl, ref: { branch: 'main' }, intervalMs: 1_000 }],
    clusters: [{ name: options.cluster, kubeconfig: options.kubeconfigPath }],
    http: { port: 0, host: '127.0.0.1' },
    workers: { concurrency: 12 },
    // The suites share a loaded machine: a slow answer from the API server must not pause the queue.
    healthCheck: { timeoutMs: 30_000, failureThreshold: 10 },
  }));
  return path;
}

/** writeConfigMaps writes config/config-<index>.yaml for each index into the working copy; `data.index` says which. */
export async function writeConfigMaps(repo: WorkingCopy, namespace: string, indexes: Iterable<number>, extra = ''): Promise<void> {
  for (const index of indexes) {
    await repo.write(`config/config-${index}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-${index}\n  namespace: ${namespace}\ndata:\n  index: "${index}"\n${extra}`);
  }
}

/**
 * appliedConfigMaps counts, from the audit log, the reconciler's server-side applies (not dry-runs)
 * of each ConfigMap since `mark` that the API server accepted, or with `refused` those it did not
 * (a request cut by a SIGKILL is answered 504).
 */
export async function appliedConfigMaps(plane: ControlPlane, namespace: string, mark: AuditLogMark, outcome: 'accepted' | 'refused' = 'accepted'): Promise<Map<string, number>> {
  return appliesByName(await readAuditLog(plane.auditLogPath!, mark, kubeUserAgent), new RegExp(`^/api/v1/namespaces/${namespace}/configmaps/([^/?]+)\\?`), outcome);
}

/** LiveConfigMap is what the cluster holds of a ConfigMap Tidemark manages. */
export interface LiveConfigMap {
  metadata: { name: string };
  data?: Record<string, string>;
}

/** managedConfigMaps lists the ConfigMaps of `namespace` that carry Tidemark's managed-by label. */
export async function managedConfigMaps(plane: ControlPlane, namespace: string): Promise<LiveConfigMap[]> {
  return (JSON.parse(await plane.kubectl(['get', 'configmaps', '-n', namespace, '-l', 'app.kubernetes.io/managed-by=tidemark', '-o', 'json'])) as { items: LiveConfigMap[] }).items;
}

/** queueIdle: nothing active or waiting on the first cluster's queue (delayed resyncs may wait). */
export async function queueIdle(queues: ReconcileQueues): Promise<boolean> {
  const [figures] = await queues.figures();
  return figures !== undefined && figures.depth.active === 0 && figures.depth.waiting === 0;
}
