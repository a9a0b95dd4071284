import {
  appliedOwnerAnnotation, markProgressing, ownerAnnotation, ownerLabel, ownerLabelValue, ownerOf, parseObjectKey, groupOf, Reason,
  type AppliedResource, type KubernetesManifest, type Logger, type ObjectStatus,
} from '@tidemark/contracts';
import type { RebuildSummary, RecordsLost, StatusStore } from '@tidemark/status-store';

/** LabelledObjects is what a sweep of one cluster for Tidemark's owner label found (libs/cluster's listOwnerLabelled). */
export interface LabelledObjects {
  objects: KubernetesManifest[];
  unlistable: string[];
  truncated: boolean;
}

/** RebuildContext is what a rebuild reads and writes, for one source at the revision its poll found. */
export interface RebuildContext {
  source: string;
  revision: string;
  clusters: readonly string[];
  statusStore: StatusStore;
  lost: RecordsLost;
  /** listLabelled sweeps a cluster for objects carrying the owner label. */
  listLabelled(cluster: string): Promise<LabelledObjects>;
  /** The field manager Tidemark applies with on a cluster: the annotation must be its. */
  fieldManagerOf(cluster: string): string;
  log?: Logger;
  now?: () => Date;
  /**
   * rebuilt runs after a cluster's records are written and before the pair is marked finished (a
   * failure leaves it pending): an agent routes the prunes of what Git dropped to its own queue there.
   */
  rebuilt?(cluster: string, summary: RebuildSummary): Promise<void>;
}

/**
 * rebuildAfterLoss runs once per (source, cluster) after Redis lost Tidemark's records (RecordsLost):
 * it sweeps the cluster for objects carrying the owner label and writes a record, where none is, for
 * each Git object of the source that such objects prove they came from. Routing then sees those
 * objects as known, so a Git object removed while the records were gone gets its prune, through
 * the usual guards and the mass-prune hold. A cluster that cannot be swept stays pending (logged).
 * Returns how many records were written.
 */
export async function rebuildAfterLoss(context: RebuildContext): Promise<number> {
  let written = 0;
  for (const cluster of await context.lost.pending(context.source, context.clusters)) {
    try {
      const summary = await rebuildCluster(context, cluster);
      await context.rebuilt?.(cluster, summary);
      await context.lost.finish(context.source, cluster, summary);
      written += summary.rebuilt;
      context.log?.warn({ source: context.source, cluster, ...summary }, 'rebuilt the records Redis lost from the owner labels in the cluster');
    } catch (error) {
      context.log?.warn({ source: context.source, cluster, err: error instanceof Error ? error.message : String(error) }, 'could not rebuild the records Redis lost; trying again at the next poll');
    }
  }
  return written;
}

async function rebuildCluster(context: RebuildContext, cluster: string): Promise<RebuildSummary> {
  const at = (context.now?.() ?? new Date());
  const found = await context.listLabelled(cluster);
  const { records, refused } = rebuiltRecords({ source: context.source, cluster, objects: found.objects, fieldManager: context.fieldManagerOf(cluster), at });
  let rebuilt = 0;
  for (const record of records) {
    const entry = { revision: context.revision, startedAt: at.toISOString(), durationMs: 0, result: 'progressing' as const, stage: 'rebuild', message: record.conditions[0]?.message ?? '' };
    if (await context.statusStore.seed(record, entry)) rebuilt += 1;
  }
  return { at: at.toISOString(), rebuilt, refused: refused.length, truncated: found.truncated, unlistable: found.unlistable };
}

/** RebuildInput is one cluster's sweep, for one source. */
export interface RebuildInput {
  source: string;
  cluster: string;
  objects: readonly KubernetesManifest[];
  fieldManager: string;
  at: Date;
}

/**
 * rebuiltRecords turns a sweep into records, one per Git object of the source. An object counts
 * only with the proof a prune needs besides Tidemark's own record: an owner annotation naming the
 * source, applied by Tidemark's field manager, and an owner label that is that annotation's hash.
 * The label alone proves nothing (anyone may write one): such objects are refused, never recorded.
 */
export function rebuiltRecords(input: RebuildInput): { records: ObjectStatus[]; refused: KubernetesManifest[] } {
  const byOwner = new Map<string, KubernetesManifest[]>();
  const refused: KubernetesManifest[] = [];
  for (const object of input.objects) {
    const owner = ownerOf(object.metadata.annotations);
    if (owner !== undefined && owner.source !== input.source) continue;
    if (owner === undefined || !proven(object, input.fieldManager)) {
      refused.push(object);
      continue;
    }
    byOwner.set(owner.objectKey, [...(byOwner.get(owner.objectKey) ?? []), object]);
  }
  const records = [...byOwner].map(([objectKey, objects]) => recordOf(input, objectKey, objects));
  return { records, refused };
}

/** proven: the annotation is Tidemark's (its field manager applied it) and the label is its hash; not on its way out. */
function proven(object: KubernetesManifest, fieldManager: string): boolean {
  const annotation = object.metadata.annotations?.[ownerAnnotation];
  if (annotation === undefined || object.metadata.deletionTimestamp) return false;
  if (object.metadata.labels?.[ownerLabel] !== ownerLabelValue(annotation)) return false;
  if (!appliedOwnerAnnotation(object.metadata.managedFields, fieldManager)) return false;
  try {
    parseObjectKey(annotation.slice(annotation.indexOf(':') + 1));
    return true;
  } catch {
    return false;
  }
}

function recordOf(input: RebuildInput, objectKey: string, objects: readonly KubernetesManifest[]): ObjectStatus {
  const key = parseObjectKey(objectKey);
  // The Git object itself, when it is live (a plain manifest, a CR); else its name from the key.
  const itself = objects.find((object) => groupOf(object.apiVersion) === key.group && object.kind === key.kind && object.metadata.name === key.name);
  const resources: AppliedResource[] = objects.map((object) => ({
    apiVersion: object.apiVersion, kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name,
    ...(typeof object.metadata.uid === 'string' ? { uid: object.metadata.uid } : {}), action: 'unchanged', health: 'Unknown',
  }));
  const message = `Rebuilt from cluster ${input.cluster} after Redis lost Tidemark's records: ${describeCount(objects.length)} carrying the ${ownerLabel} label and an owner annotation Tidemark applied for ${objectKey}. ` +
    'The next run reconciles it; if Git no longer declares it, it is pruned through the usual guards and the mass-prune hold.';
  return {
    cluster: input.cluster, objectKey, source: input.source,
    apiVersion: itself?.apiVersion ?? (key.group === '' ? 'v1' : `${key.group}/v1`), kind: key.kind, namespace: key.namespace, name: key.name,
    conditions: markProgressing([], 0, { reason: Reason.RebuiltFromCluster, message }, input.at),
    // The inventory is what the Git object rendered: never itself (a plain manifest renders nothing).
    inventory: objects.filter((object) => object !== itself).map((object) => ({ apiVersion: object.apiVersion, kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name })),
    resources,
    updatedAt: input.at.toISOString(),
  };
}

function describeCount(count: number): string {
  return count === 1 ? '1 live object' : `${count} live objects`;
}
