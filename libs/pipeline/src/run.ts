import type { ChangeSetEntry, ClusterConnection, EventInput } from '@tidemark/cluster';
import type { DriftItem, InventoryEntry, KubernetesManifest, ObjectRef, ObjectStatus, ReconcileFailure, ReconcileJob } from '@tidemark/contracts';
import type { Health, RegisteredKind } from '@tidemark/kinds';
import type { DesiredObject } from './dependencies';

/** StageName names the eight stages, for reasons, logs and history. */
export type StageName = 'fetch' | 'deletion' | 'validate' | 'features' | 'render' | 'apply' | 'status' | 'result';

/**
 * ReconcileRun is the state of one reconcile as it moves through the stages. Each stage reads
 * what earlier stages set and adds its own part; nothing here outlives the run.
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
  /** For a kind plugin: the live CR. For a plain manifest: the live object. */
  live?: KubernetesManifest;
  /** The desired object with the namespace defaulted (what is applied). */
  object?: KubernetesManifest;
  /** For a kind plugin: the object with kind defaults, which render and act read. */
  defaulted?: KubernetesManifest;
  features: string[];
  rendered: KubernetesManifest[];
  changes: ChangeSetEntry[];
  inventory: InventoryEntry[];
  pruned: InventoryEntry[];
  health: Health;
  kindStatus: Record<string, unknown>;
  kindConditions: { type: string; status: 'True' | 'False' | 'Unknown'; reason: string; message: string }[];
  warnings: string[];
  /** Drift found by this run: healed (re-applied) and reported (left as it is). */
  drift: { healed: DriftItem[]; reported: DriftItem[] };
  /** Events beyond the change set that this run should emit. */
  events: EventInput[];
  /** Set by the deletion stage when the object was removed and its objects pruned. */
  deleted: boolean;
  /** Set by fetch when a stalled object's spec has not changed: nothing to do. */
  skipped: boolean;
  /** Set when the run failed, for the observer. */
  failure?: ReconcileFailure;
}
