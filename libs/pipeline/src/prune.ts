import { deleteObject, describe, type ChangeSetEntry, type ClusterConnection } from '@tidemark/cluster';
import { groupOf, type InventoryEntry, type KubernetesManifest } from '@tidemark/contracts';
import type { ReconcileRun } from './run';

/** previousInventory is what the last run applied: the CR's in-cluster record first, then the store. */
export function previousInventory(run: ReconcileRun): InventoryEntry[] {
  const inCluster = (run.live?.status as { inventory?: unknown } | undefined)?.inventory;
  if (Array.isArray(inCluster)) return inCluster as InventoryEntry[];
  return run.previous?.inventory ?? [];
}

/** pruneEntries deletes inventory entries and returns a 'deleted' change-set entry for each that existed. */
export async function pruneEntries(connection: ClusterConnection, entries: readonly InventoryEntry[]): Promise<ChangeSetEntry[]> {
  const deleted: ChangeSetEntry[] = [];
  for (const entry of entries) {
    const result = await deleteObject(connection, { group: groupOf(entry.apiVersion), kind: entry.kind, namespace: entry.namespace, name: entry.name });
    if (result === 'deleted') deleted.push(deletedEntry(entry));
  }
  return deleted;
}

/** deletedEntry is the change-set entry of a deletion; its object is the identity the inventory knew. */
export function deletedEntry(entry: InventoryEntry): ChangeSetEntry {
  const object: KubernetesManifest = { apiVersion: entry.apiVersion, kind: entry.kind, metadata: { name: entry.name, ...(entry.namespace ? { namespace: entry.namespace } : {}) } };
  return { subject: describe(object), action: 'deleted', object };
}
