import { ApiError, deleteObject, describe, getByResource, type ChangeSetEntry, type ClusterConnection } from '@tidemark/cluster';
import { groupOf, NotReadyError, type InventoryEntry, type KubernetesManifest } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import type { PruneResult, ReconcileRun } from '../run';
import { adjudicatePrune, defaultPruneGuards, describeEntry, type KeptObject, type PruneVerdict } from './guards';
import { pruneContext } from './prune-context';
import { inventoryEntry, ownerOfRun } from '../render/stage-render';

/** previousInventory is what the last run applied: the CR's in-cluster record first, then the store. A hint, never proof. */
export function previousInventory(run: ReconcileRun): InventoryEntry[] {
  const inCluster = (run.live?.status as { inventory?: unknown } | undefined)?.inventory;
  if (Array.isArray(inCluster)) return inCluster.filter(isInventoryEntry).map((entry) => ({ ...entry, namespace: entry.namespace ?? '' }));
  return run.previous?.inventory ?? [];
}

/**
 * pruneEntries deletes the objects inventory entries name, each only if every prune guard
 * allows it; each is read first and judged on what the cluster holds. It returns a 'deleted'
 * change-set entry for each deleted object, and the ones a guard kept, with the reason.
 */
export async function pruneEntries(run: ReconcileRun, deps: PipelineDependencies, entries: readonly InventoryEntry[]): Promise<PruneResult> {
  const result: PruneResult = { deleted: [], kept: [] };
  for (const entry of entries) {
    const live = await readEntry(run.connection, entry);
    if (live) addPruned(result, await pruneLive(run, deps, entry, live));
  }
  return result;
}

/** pruneLiveObject deletes one live object the run found, if the guards allow. */
export function pruneLiveObject(run: ReconcileRun, deps: PipelineDependencies, live: KubernetesManifest): Promise<PruneResult> {
  return pruneLive(run, deps, inventoryEntry(live), live);
}

/** addPruned adds what one prune did to what a run pruned so far. */
export function addPruned(into: PruneResult, result: PruneResult): PruneResult {
  into.deleted.push(...result.deleted);
  into.kept.push(...result.kept);
  return into;
}

/** judgePrune asks every prune guard about one live object. */
export function judgePrune(run: ReconcileRun, deps: PipelineDependencies, entry: InventoryEntry, live: KubernetesManifest): Promise<PruneVerdict & { guard?: string }> {
  const candidate = { entry, live, owner: ownerOfRun(run), fieldManager: run.connection.fieldManager, context: pruneContext(run, deps) };
  return adjudicatePrune(candidate, deps.pruneGuards ?? defaultPruneGuards);
}

async function pruneLive(run: ReconcileRun, deps: PipelineDependencies, entry: InventoryEntry, live: KubernetesManifest): Promise<PruneResult> {
  const verdict = await judgePrune(run, deps, entry, live);
  if (!verdict.allowed) return { deleted: [], kept: [kept(run, deps, { entry, guard: verdict.guard ?? 'unknown', reason: verdict.reason })] };
  // Deleted as judged: a change since the read (the annotation stripped, the object replaced) fails the delete.
  const target = { group: groupOf(entry.apiVersion), kind: entry.kind, namespace: entry.namespace, name: entry.name };
  const gone = (await deleteObject(run.connection, target, { uid: live.metadata.uid, resourceVersion: live.metadata.resourceVersion })) === 'deleted';
  return { deleted: gone ? [deletedEntry(entry)] : [], kept: [] };
}

function kept(run: ReconcileRun, deps: PipelineDependencies, object: KeptObject): KeptObject {
  deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, kept: describeEntry(object.entry), guard: object.guard, reason: object.reason }, 'prune refused');
  return object;
}

async function readEntry(connection: ClusterConnection, entry: InventoryEntry): Promise<KubernetesManifest | undefined> {
  let resource;
  try {
    resource = await connection.discovery.resourceForGroupKind(groupOf(entry.apiVersion), entry.kind);
  } catch (error) {
    if (error instanceof ApiError && error.isNotFound) return undefined;
    if (error instanceof NotReadyError && error.code === 'KindNotServed') return undefined;
    throw error;
  }
  const live = await getByResource(connection, resource, resource.namespaced ? entry.namespace || undefined : undefined, entry.name);
  return live ? { ...live, apiVersion: live.apiVersion || entry.apiVersion, kind: live.kind || entry.kind } : undefined;
}

/** deletedEntry is the change-set entry of a deletion; its object is the identity the inventory knew. */
export function deletedEntry(entry: InventoryEntry): ChangeSetEntry {
  const object: KubernetesManifest = { apiVersion: entry.apiVersion, kind: entry.kind, metadata: { name: entry.name, ...(entry.namespace ? { namespace: entry.namespace } : {}) } };
  return { subject: describe(object), action: 'deleted', object };
}

function isInventoryEntry(value: unknown): value is InventoryEntry {
  const entry = value as Partial<InventoryEntry> | null;
  return typeof entry === 'object' && entry !== null && typeof entry.apiVersion === 'string' && typeof entry.kind === 'string'
    && typeof entry.name === 'string' && typeof (entry.namespace ?? '') === 'string';
}
