import { listObjects, watchObjects, type ClusterConnection, type RunningWatch } from '@tidemark/cluster';
import type { KubernetesManifest, Logger, ObjectStatus, ReconcileJob } from '@tidemark/contracts';
import { parseCustomResource, type KindRegistry, type RegisteredKind } from '@tidemark/kinds';
import type { StatusStore } from '@tidemark/status-store';
import { latestRevision } from './latest-revision';
import type { RedisClient } from '@tidemark/contracts';

/** Enqueuer is the one queue call the watches make. */
export interface Enqueuer {
  enqueue(job: ReconcileJob): Promise<unknown>;
}


export interface ReferenceWatchOptions {
  clusters: ReadonlyMap<string, ClusterConnection>;
  kinds: KindRegistry;
  statusStore: StatusStore;
  queues: Enqueuer;
  redis: RedisClient;
  log?: Logger;
}

/**
 * startReferenceWatches watches, on every cluster, the kinds that kind plugins reference (the
 * ConfigMaps of ConfigWatchers). A change to a referenced object, by Git or by hand, enqueues
 * every CR that references it, at the revision it was last reconciled from.
 */
export function startReferenceWatches(options: ReferenceWatchOptions): { stop(): void } {
  const watches: RunningWatch[] = [];
  const referencing = options.kinds.list().filter((plugin) => plugin.referencedObjects && plugin.referencedKinds);
  const watchedKinds = uniqueKinds(referencing);
  for (const [cluster, connection] of options.clusters) {
    for (const watched of watchedKinds) {
      watches.push(watchObjects(connection, {
        ...watched,
        onEvent: (type, object, initial) => {
          if (initial) return;
          void wakeReferrers(cluster, connection, object, referencing, options).catch((error: unknown) =>
            options.log?.warn({ cluster, err: String(error) }, 'could not enqueue the objects that reference a changed object'));
        },
        onError: (error) => options.log?.warn({ cluster, kind: watched.kind, err: String(error) }, 'watch failed; retrying'),
      }));
    }
  }
  return { stop: () => watches.forEach((watch) => watch.stop()) };
}

async function wakeReferrers(cluster: string, connection: ClusterConnection, changed: KubernetesManifest, plugins: RegisteredKind[], options: ReferenceWatchOptions): Promise<void> {
  const namespace = changed.metadata.namespace ?? '';
  let records: ObjectStatus[] | undefined;
  for (const plugin of plugins) {
    if (!plugin.referencedKinds?.some((kind) => kind.kind === changed.kind && kind.apiVersion === changed.apiVersion)) continue;
    const candidates = await listObjects(connection, `${plugin.group}/${plugin.version}`, plugin.kind, namespace);
    const referrers = candidates.filter((candidate) => references(plugin, candidate, changed));
    if (referrers.length === 0) continue;
    records ??= await options.statusStore.list(cluster);
    for (const referrer of referrers) {
      const record = records.find((entry) => entry.kind === plugin.kind && entry.namespace === referrer.metadata.namespace && entry.name === referrer.metadata.name);
      const revision = record && await latestRevision(options, cluster, record);
      if (!record || !revision) continue;
      await options.queues.enqueue({ source: record.source, revision, cluster, objectKey: record.objectKey, reason: 'watch' });
      options.log?.info({ cluster, objectKey: record.objectKey, changed: `${changed.kind} ${namespace}/${changed.metadata.name}` }, 'a referenced object changed');
    }
  }
}

function references(plugin: RegisteredKind, candidate: KubernetesManifest, changed: KubernetesManifest): boolean {
  let parsed;
  try {
    parsed = parseCustomResource(plugin, candidate, 'cluster');
  } catch {
    return false; // A CR whose spec does not fit its kind references nothing; its own run says why.
  }
  const referenced = plugin.referencedObjects?.(parsed) ?? [];
  return referenced.some((ref) => ref.kind === changed.kind && ref.name === changed.metadata.name && ref.namespace === (changed.metadata.namespace ?? ''));
}

function uniqueKinds(plugins: RegisteredKind[]): { apiVersion: string; kind: string }[] {
  const seen = new Map<string, { apiVersion: string; kind: string }>();
  for (const plugin of plugins) for (const kind of plugin.referencedKinds ?? []) seen.set(`${kind.apiVersion}|${kind.kind}`, kind);
  return [...seen.values()];
}
