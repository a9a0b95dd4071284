import type { ClusterConnection } from '@tidemark/cluster';
import type { InventoryEntry, KubernetesManifest } from '@tidemark/contracts';

/**
 * PruneContext is what a guard may ask beyond the object itself: the cluster, and Git at the
 * run's revision. It is the run's, the same for every candidate.
 */
export interface PruneContext {
  connection: ClusterConnection;
  /** The source asking for the delete. */
  source: string;
  /** The built-in kind whose CRD this is, if any, and whether the source may manage it. */
  builtinCrd(name: string): { kind: string; managedBySource: boolean } | undefined;
  /**
   * declaredBy tells which Git object (its file) still declares this live object at the run's
   * revision, under whatever spelling (namespace written or omitted); undefined when none does.
   */
  declaredBy(live: KubernetesManifest): Promise<string | undefined>;
  /**
   * The status record Tidemark wrote for the Git object asking (from Redis: unparsed, hostile
   * input), read before the run; undefined when there is none or it is another object's.
   */
  record: unknown;
}

/**
 * PruneCandidate is one object Tidemark is about to delete: the inventory entry (or Git object)
 * that named it, the object as the cluster holds it right now, and who asks.
 */
export interface PruneCandidate {
  /** What named the object. An inventory is a hint only: a guard checks `live`, never this. */
  entry: InventoryEntry;
  /** The live object, read just before the delete. */
  live: KubernetesManifest;
  /** The owner annotation value of the Git object asking for the delete (`<source>:<objectKey>`). */
  owner: string;
  /** Tidemark's field manager on this cluster. */
  fieldManager: string;
  context: PruneContext;
}

/** PruneVerdict is a guard's answer: delete, or keep and say why in a sentence. */
export type PruneVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * PruneGuard is one small adjudicator of a delete (as Pepr's filters are). Each guard checks one
 * thing; a delete goes ahead only when every guard allows it, and the first refusal's reason is
 * logged and recorded.
 */
export interface PruneGuard {
  /** A stable name, in logs and in the kept entry. */
  name: string;
  check(candidate: PruneCandidate): PruneVerdict | Promise<PruneVerdict>;
}

/** KeptObject is an object a guard refused to delete (it is orphaned), with the reason. */
export interface KeptObject {
  entry: InventoryEntry;
  guard: string;
  reason: string;
}

export const allowPrune: PruneVerdict = Object.freeze({ allowed: true });

/** keep is the verdict that refuses a delete with a reason. */
export function keep(reason: string): PruneVerdict {
  return { allowed: false, reason };
}

/** describeEntry names an object for a reason: `Deployment kube-system/coredns`. */
export function describeEntry(entry: InventoryEntry): string {
  return `${entry.kind} ${entry.namespace ? `${entry.namespace}/` : ''}${entry.name}`;
}

/** The annotation that opts an object out of prune ("false") or into the prune of a CRD or Namespace that still holds objects ("true"). */
export const pruneAnnotation = 'tidemark.dev/prune';

/** pruneOptIn reads the live object's tidemark.dev/prune annotation. */
export function pruneOptIn(live: KubernetesManifest): 'true' | 'false' | undefined {
  const value = live.metadata.annotations?.[pruneAnnotation]?.trim().toLowerCase();
  return value === 'true' || value === 'false' ? value : undefined;
}
