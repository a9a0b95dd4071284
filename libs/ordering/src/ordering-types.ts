import type { Hook, KubernetesManifest } from '@tidemark/contracts';

// The ordering's data, shared by revision-ordering.ts and hook-ordering.ts (types only).

/** Why one object waits for another. */
export type DependencyReason = 'depends-on' | 'sync-wave' | 'namespace' | 'crd' | 'hook';

/** Dependency is one object an object waits for. */
export interface Dependency {
  objectKey: string;
  description: string;
  reason: DependencyReason;
  /** Set when the same source revision declares it: the spec it must be Ready at. */
  specHash?: string;
  /** For a depends-on reference that names its source. */
  source?: string;
  /** For reason `sync-wave`: the wave waited for. */
  wave?: number;
}

/** OrderedObject is one object of a revision as the ordering reads it. */
export interface OrderedObject {
  objectKey: string;
  object: KubernetesManifest;
  path: string;
  specHash: string;
}

/** OrderingNode is what one object waits for within a source revision, and what is wrong with its ordering. */
export interface OrderingNode {
  objectKey: string;
  path: string;
  wave: number;
  dependencies: Dependency[];
  /** Unreadable ordering annotations, one sentence each naming the annotation. */
  problems: string[];
  /** The members of the dependency cycle this object is in, if any. */
  cycle?: string[];
  /** Set for a hook: its run at this revision (what it waits for is in dependencies). */
  hook?: HookRun;
  /** Set for an apply-failed hook: the objects whose failure at this revision runs it. */
  hookWatches?: Dependency[];
  /** Set for a Helm hook Tidemark never runs (post-delete, rollback): the sentence that says so. */
  skippedHook?: string;
}

/** RevisionOrdering is the dependency graph of one source revision on one cluster. */
export interface RevisionOrdering {
  nodes: ReadonlyMap<string, OrderingNode>;
  cycles: string[][];
}

/**
 * HookRun is one hook's run at a source revision. `runId` is a digest of what the revision applies
 * on the cluster (every object that is not a hook, with its spec) and of the hook itself: it
 * changes exactly when one of those does, so a hook runs again when, and only when, a revision
 * changes what the source applies (or the hook).
 */
export interface HookRun {
  hook: Hook;
  runId: string;
  /** The spec hash the hook's run is Ready at: its own spec and the run id. What waits for it asks for this one. */
  specHash: string;
}
