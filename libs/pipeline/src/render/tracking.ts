import { formatOwner, groupOf, ownerAnnotation, ownerLabel, ownerLabelValue, type InventoryEntry, type KubernetesManifest } from '@tidemark/contracts';

/** Finalizer Tidemark puts on CRs it reconciles, so deleting one cleans up what it owns. */
export const cleanupFinalizer = 'tidemark.dev/cleanup';
/** Opt-in that lets an object that now renders nothing prune everything it rendered before. */
export const pruneEmptyAnnotation = 'tidemark.dev/prune-empty';

/** ownerOfRun is the owner annotation's value for the Git object a run reconciles. */
export function ownerOfRun(run: { job: { source: string; objectKey: string } }): string {
  return formatOwner(run.job);
}

/**
 * withOwner returns the object with Tidemark's tracking annotation and its hash as the owner label
 * (listable after a Redis loss), and the managed-by label unless the object sets its own (a chart's
 * `Helm` stays as `helm template` rendered it). The owner label always wins over Git's.
 */
export function withOwner(object: KubernetesManifest, owner: string): KubernetesManifest {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      labels: { 'app.kubernetes.io/managed-by': 'tidemark', ...object.metadata.labels, [ownerLabel]: ownerLabelValue(owner) },
      annotations: { ...object.metadata.annotations, [ownerAnnotation]: owner },
    },
  };
}

/** inventoryEntry is how the inventory records an object. */
export function inventoryEntry(object: KubernetesManifest): InventoryEntry {
  return { apiVersion: object.apiVersion, kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name };
}

/** inventoryId identifies an entry by group and kind, so a version change is not a prune. */
export function inventoryId(entry: InventoryEntry): string {
  return `${groupOf(entry.apiVersion)}/${entry.kind}/${entry.namespace}/${entry.name}`;
}

/** staleEntries are the previous entries that the new inventory no longer holds. */
export function staleEntries(previous: readonly InventoryEntry[], next: readonly InventoryEntry[]): InventoryEntry[] {
  const kept = new Set(next.map(inventoryId));
  return previous.filter((entry) => !kept.has(inventoryId(entry)));
}
