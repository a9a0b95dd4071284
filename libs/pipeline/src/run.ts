import type { ChangeSetEntry, ClusterConnection } from '@tidemark/cluster';
import type { KubernetesManifest, ObjectRef, ObjectStatus, ReconcileFailure, ReconcileJob } from '@tidemark/contracts';
import type { RegisteredKind } from '@tidemark/kinds';
import type { DesiredObject } from './dependencies';
import type { ApplyOutcome } from './stage-results';
import type { KeptObject } from './prune-guards';

export type { ApplyOutcome } from './stage-results';

/** StageName names the stages, for reasons, logs and history. */
export type StageName = 'fetch' | 'deletion' | 'validate' | 'features' | 'render' | 'apply' | 'prune' | 'act' | 'health' | 'status' | 'result';

/**
 * ReconcileRun is what fetch and deletion learn about one run, and how it ended. The stages from
 * validate on return typed results instead (the defaulted CR, features, rendered objects,
 * ApplyOutcome), which reconcile hands to the next; nothing here outlives the run.
 */
export interface ReconcileRun {
  job: ReconcileJob;
  ref: ObjectRef;
  startedAt: Date;
  stage: StageName;
  connection: ClusterConnection;
  previous?: ObjectStatus;
  desired?: DesiredObject;
  /** sha256 of the desired object as Git declares it. */
  specHash?: string;
  plugin?: RegisteredKind;
  /** For a kind plugin: the live CR. For a plain manifest: the live object. Read before apply. */
  live?: KubernetesManifest;
  /** The desired object with the namespace defaulted (what is applied). */
  object?: KubernetesManifest;
  /** What the deletion stage pruned, as 'deleted' change-set entries. */
  pruned: ChangeSetEntry[];
  /** Objects a prune guard refused to delete (orphaned), each with its reason. */
  kept: KeptObject[];
  /** Set by the deletion stage when the object itself, removed from Git, was kept (orphaned). */
  orphaned?: KeptObject;
  /** Set by the deletion stage when the object was removed and its objects pruned. */
  deleted: boolean;
  /** Set by fetch for a suspended object, or a stalled one at the revision it stalled at: nothing to do. */
  skipped: boolean;
  /** Set by fetch when a stalled object's spec is unchanged at a new revision: it fails again as it did. */
  stalledAgain?: boolean;
  /** Set once apply, prune, act and health have all returned. */
  outcome?: ApplyOutcome;
  /** Set when the run failed. */
  failure?: ReconcileFailure;
}
