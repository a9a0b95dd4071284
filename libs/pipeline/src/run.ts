import type { ChangeSetEntry, ClusterConnection } from '@tidemark/cluster';
import type { KubernetesManifest, ObjectRef, ObjectStatus, ReconcileFailure, ReconcileJob, TerminalError } from '@tidemark/contracts';
import type { Health, RegisteredKind, RunHealthRules } from '@tidemark/kinds';
import type { HookRun, OrderingNode } from '@tidemark/ordering';
import type { TraceSpan } from '@tidemark/tracing';
import type { Declaration, DesiredObject } from './dependencies';
import type { ApplyOutcome } from './apply/apply-results';
import type { KeptObject } from './prune/guards';

export type { ApplyOutcome } from './apply/apply-results';

/** StageName names the stages, for reasons, logs and history. */
export type StageName = 'fetch' | 'deletion' | 'order' | 'validate' | 'features' | 'render' | 'apply' | 'prune' | 'act' | 'health' | 'hooks' | 'status' | 'result';

/** Fetched is what the fetch stage read: Git at the run's revision, the cluster and the last status. */
export interface Fetched {
  /** The revision the run reconciles at: the job's, or the one the source admitted instead. */
  revision: string;
  previous?: ObjectStatus;
  desired?: DesiredObject;
  /** sha256 of the desired object as Git declares it. */
  specHash?: string;
  plugin?: RegisteredKind;
  /** Set by fetch when the cluster does not serve the object's kind (its CRD is not Established yet). */
  kindNotServed?: boolean;
  /** For a kind plugin: the live CR. For a plain manifest: the live object. Read before apply. */
  live?: KubernetesManifest;
  /** The desired object with the namespace defaulted (what is applied). */
  object?: KubernetesManifest;
  /** Set when the Placement rule that places the object names its ServiceAccount (runConnections): the run acts as that from fetch on. */
  placedAs?: PlacedConnections;
  /** Set by preventionCheck when what the run applies is guarded at admission: the Git file refusals name. */
  prevention?: { gitFile: string };
}

/** PlacedConnections are a run's connections as the ServiceAccount its Placement rule names. */
export interface PlacedConnections {
  connection: ClusterConnection;
  actionsConnection: ClusterConnection;
  /** `Placement <name> spec.rules[i]`. */
  rule: string;
}

/**
 * FetchResult says what the run does with what fetch read: reconcile it; skip it (a suspended
 * object, or a stalled one at the revision it stalled at); or stall again (a stalled object
 * whose spec is unchanged at a new revision fails as it did, with `failure`); or fail with what it
 * read (a refusal before the cluster is asked: the last status record stays the basis of the next).
 */
export type FetchResult =
  | { action: 'reconcile'; fetched: Fetched }
  | { action: 'skip'; fetched: Fetched }
  | { action: 'stallAgain'; fetched: Fetched; failure: TerminalError }
  | { action: 'fail'; fetched: Fetched; failure: ReconcileFailure };

/** PruneResult is what a prune did: 'deleted' change-set entries, and the objects a prune guard kept (orphaned). */
export interface PruneResult {
  deleted: ChangeSetEntry[];
  kept: KeptObject[];
}

/**
 * DeletionResult is what the deletion stage did: nothing (the object is in Git and not being
 * deleted); pruned what the object applied (and the object itself, when removed from Git); or
 * orphaned the removed object, which a prune guard kept, with everything it owns.
 */
export type DeletionResult =
  | { action: 'none' }
  | { action: 'pruned'; pruned: PruneResult }
  | { action: 'orphaned'; orphaned: KeptObject };

/**
 * ReconcileRun is one run as reconcile composes it: the job and its cluster, the stage it is in,
 * and the stages' results as reconcile records them (what fetch read, what deletion did, the
 * outcome of apply to health, the failure). Stages read it and return results; only reconcile
 * writes it (and each stage its own `stage`). Nothing here outlives the run.
 */
export interface ReconcileRun extends Partial<Omit<Fetched, 'revision'>> {
  job: ReconcileJob;
  ref: ObjectRef;
  startedAt: Date;
  stage: StageName;
  /** The source's identity (see runConnections): every read and write about its objects. */
  connection: ClusterConnection;
  /** The same identity with the kind's second field manager. */
  actionsConnection: ClusterConnection;
  /** The reconciler's own identity, for the CR's /status and Events only. */
  reportingConnection: ClusterConnection;
  /** The run's span (noSpan when tracing is off); each stage is a child of it. */
  span: TraceSpan;
  /** How fetch judged the run. */
  fetched?: FetchResult['action'];
  /** What the deletion stage did. */
  deletion?: DeletionResult;
  /** The object's place in its source revision's ordering, read before the order stage. */
  ordering?: OrderingNode;
  /** Set when the object is a sync hook: the run this revision wants of it (readHookRun). */
  hookState?: HookState;
  /** The health rules of the run's source (its HealthRule objects between the config's and the built-in ones), read before apply. */
  healthRules?: RunHealthRules;
  /** Other declarations of the run's live object, which finalize wakes: the object left Git, so one of them may apply it now. */
  wakes?: Declaration[];
  /** Set once apply, prune, act and health have all returned. */
  outcome?: ApplyOutcome;
  /** Set when the run failed. */
  failure?: ReconcileFailure;
  /** The status record finalize wrote for the run, once written (none when it wrote none, or forgot the object). */
  finalized?: ObjectStatus;
  /** How many live objects the run took from the watch cache instead of the API server. */
  cachedReads?: number;
  /** Set on the retry of a run whose cached reads proved stale: every read goes to the API server. */
  liveReads?: boolean;
}

/** isSkipped: fetch found nothing to do (suspended, or stalled at this revision). */
export function isSkipped(run: ReconcileRun): boolean {
  return run.fetched === 'skip';
}

/** isStalledAgain: fetch found a stalled object whose spec is unchanged at a new revision. */
export function isStalledAgain(run: ReconcileRun): boolean {
  return run.fetched === 'stallAgain';
}

/** isDeleted: the deletion stage pruned or orphaned the object; nothing was applied. */
export function isDeleted(run: ReconcileRun): boolean {
  return run.deletion !== undefined && run.deletion.action !== 'none';
}

/** prunedBy is what the deletion stage pruned and kept; empty when it did neither. */
export function prunedBy(deletion: DeletionResult | undefined): PruneResult {
  return deletion?.action === 'pruned' ? deletion.pruned : { deleted: [], kept: [] };
}

/**
 * HookState is what a hook's run is at the job's revision: the run (its id, phase and policies),
 * the name its object is applied under, and, when nothing is to be applied, the verdict instead:
 * a Helm hook Tidemark never runs, an apply-failed hook whose apply succeeded, or a run that
 * already ended and whose object its delete policy removed (it is never created again).
 */
export interface HookState {
  run?: HookRun;
  name?: string;
  verdict?: Health;
}
