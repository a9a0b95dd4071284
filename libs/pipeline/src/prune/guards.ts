import { countCustomResources, foreignObjectsIn, type ClusterConnection } from '@tidemark/cluster';
import { groupOf, type InventoryEntry, type KubernetesManifest } from '@tidemark/contracts';

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

/**
 * pruneAnnotationGuard keeps any object annotated tidemark.dev/prune: "false", as Flux's
 * `kustomize.toolkit.fluxcd.io/prune: disabled` and Argo CD's `Prune=false` do.
 */
export const pruneAnnotationGuard: PruneGuard = {
  name: 'prune-annotation',
  check(candidate: PruneCandidate): PruneVerdict {
    if (pruneOptIn(candidate.live) !== 'false') return allowPrune;
    return keep(`${describeEntry(candidate.entry)} is annotated ${pruneAnnotation}: "false", so it is orphaned (left in the cluster), not deleted.`);
  },
};

// The Source kind (libs/source-objects); the pipeline names it here rather than import that library.
const sourceApiVersion = 'tidemark.dev/v1alpha1';

/**
 * ownSourceGuard never lets a source delete the Source object that defines it (a Source kept in
 * its own repository, as Flux's flux-system is). Deleting it would prune everything the source
 * applied, and nothing would be left to undo the mistake from Git. It is kept, saying how to
 * delete it on purpose.
 */
export const ownSourceGuard: PruneGuard = {
  name: 'own-source',
  check({ entry, live, context }: PruneCandidate): PruneVerdict {
    if (live.apiVersion !== sourceApiVersion || live.kind !== 'Source') return allowPrune;
    if (`${live.metadata.namespace ?? 'default'}.${live.metadata.name}` !== context.source) return allowPrune;
    return keep(`${describeEntry(entry)} defines source ${context.source}, the source that would delete it, so it is orphaned, not deleted; delete it with kubectl if you mean to remove that source.`);
  },
};

/**
 * builtinCrdGuard never deletes the CRD of a built-in kind (ConfigWatcher, WebApp) on behalf of
 * a source that is not allowed to manage it: Tidemark installs and keeps those itself.
 */
export const builtinCrdGuard: PruneGuard = {
  name: 'builtin-crd',
  check({ live, context }: PruneCandidate): PruneVerdict {
    if (live.kind !== 'CustomResourceDefinition') return allowPrune;
    const builtin = context.builtinCrd(live.metadata.name);
    if (!builtin || builtin.managedBySource) return allowPrune;
    return keep(`CustomResourceDefinition ${live.metadata.name} is the CRD of Tidemark's built-in kind ${builtin.kind}; Tidemark keeps it, so it is not deleted.`);
  },
};

/**
 * stillDeclaredGuard never deletes a live object that a Git object still declares: an identity
 * that changed only in spelling (the namespace written out or left to the default) is the same
 * object, and deleting it to create it again would be downtime.
 */
export const stillDeclaredGuard: PruneGuard = {
  name: 'still-declared',
  async check({ entry, live, context }: PruneCandidate): Promise<PruneVerdict> {
    const declaredBy = await context.declaredBy(live);
    if (!declaredBy) return allowPrune;
    return keep(`${describeEntry(entry)} is still declared in Git by ${declaredBy}, so it is not deleted (the same object, spelt differently).`);
  },
};

/**
 * crdInstancesGuard never deletes a CRD while custom resources of it exist (deleting it deletes
 * every one of them, cluster-wide), unless the CRD opts in with tidemark.dev/prune: "true".
 */
export const crdInstancesGuard: PruneGuard = {
  name: 'crd-instances',
  async check({ live, context }: PruneCandidate): Promise<PruneVerdict> {
    if (live.kind !== 'CustomResourceDefinition' || pruneOptIn(live) === 'true') return allowPrune;
    const found = await countCustomResources(context.connection, live);
    if (found.count === 0) return allowPrune;
    const count = `${found.count}${found.more ? '+' : ''}`;
    return keep(`CustomResourceDefinition ${live.metadata.name} still has ${count} custom resources (${found.examples.join(', ')}${found.count > found.examples.length ? ', …' : ''}); ` +
      `deleting it would delete them all, so it is orphaned (left in the cluster). Delete them first, or annotate the CRD ${pruneAnnotation}: "true".`);
  },
};

/**
 * namespaceContentsGuard never deletes a Namespace that holds objects Tidemark did not put there
 * (deleting it deletes them), nor one holding kinds its identity may not list (what it cannot see
 * may be someone's), unless the Namespace opts in with tidemark.dev/prune: "true".
 */
export const namespaceContentsGuard: PruneGuard = {
  name: 'namespace-contents',
  async check({ live, context }: PruneCandidate): Promise<PruneVerdict> {
    if (live.kind !== 'Namespace' || groupOf(live.apiVersion) !== '' || pruneOptIn(live) === 'true') return allowPrune;
    const { foreign, unlistable } = await foreignObjectsIn(context.connection, live.metadata.name);
    if (foreign.length === 0 && unlistable.length > 0) {
      return keep(`Namespace ${live.metadata.name} may hold objects Tidemark cannot see: its identity may not list ${unlistable.join(', ')} there, ` +
        `and deleting the Namespace would delete them, so it is orphaned (left in the cluster). Grant list on them, or annotate the Namespace ${pruneAnnotation}: "true".`);
    }
    if (foreign.length === 0) return allowPrune;
    return keep(`Namespace ${live.metadata.name} holds objects Tidemark did not put there (${foreign.join(', ')}${foreign.length >= 5 ? ', …' : ''}); ` +
      `deleting it would delete them, so it is orphaned (left in the cluster). Move or delete them, or annotate the Namespace ${pruneAnnotation}: "true".`);
  },
};
