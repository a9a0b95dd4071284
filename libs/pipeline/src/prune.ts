import { deleteObject, type ClusterConnection } from '@tidemark/cluster';
import type { InventoryEntry } from '@tidemark/contracts';
import type { ReconcileRun } from './run';

/** previousInventory is what the last run applied: the CR's in-cluster record first, then the store. */
export function previousInventory(run: ReconcileRun): InventoryEntry[] {
  const inCluster = (run.live?.status as { inventory?: unknown } | undefined)?.inventory;
  if (Array.isArray(inCluster)) return inCluster as InventoryEntry[];
  return run.previous?.inventory ?? [];
}

/** pruneEntries deletes inventory entries and returns the ones that existed. */
export async function pruneEntries(connection: ClusterConnection, entries: readonly InventoryEntry[]): Promise<InventoryEntry[]> {
  const deleted: InventoryEntry[] = [];
  for (const entry of entries) {
    const group = entry.apiVersion.includes('/') ? (entry.apiVersion.split('/')[0] ?? '') : '';
    const result = await deleteObject(connection, { group, kind: entry.kind, namespace: entry.namespace, name: entry.name });
    if (result === 'deleted') deleted.push(entry);
  }
  return deleted;
}
