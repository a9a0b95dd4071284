import type { EventInput } from '@tidemark/cluster';
import { markFailure, Reason, TerminalError, type FailureCategory, type FailureSummary, type ObjectStatus, type ReconcileFailure } from '@tidemark/contracts';
import { isStalledAgain, type ReconcileRun, type StageName } from '../run';
import { isFreezeFailure, isWindowFailure } from '../gates/stage-gates';
import { desiredPlace } from './stage-status';
import { unreadySince } from '../health/stage-health';
import { keptDependencyEdges } from '../ordering/dependency-state';

/** FailureReport is what a failed run tells the cluster: the CR's /status, best effort, and a Warning event. */
export interface FailureReport {
  customStatus?: Record<string, unknown>;
  events: EventInput[];
}

/**
 * failureReport says what a failed run tells the cluster: the CR's /status gets Ready=False with
 * the stage's reason (and Stalled=True for a terminal failure), and a Warning event says why.
 * finalize writes them; the status store record is failureRecord.
 */
export function failureReport(run: ReconcileRun, failure: ReconcileFailure, now: Date): FailureReport {
  // Stalled again with an unchanged spec: the cluster was told the first time. A frozen cluster, or one a sync window holds, is told nothing.
  if (isStalledAgain(run) || isFreezeFailure(failure) || isWindowFailure(failure) || !run.live) return { events: [] };
  const reason = reasonFor(run.stage, failure);
  const events: EventInput[] = [{ type: 'Warning', reason, message: failure.message }];
  if (!run.plugin || run.live.metadata.deletionTimestamp) return { events };
  // The whole status is applied again: under one field manager, a partial apply would drop
  // the fields the last successful run wrote (observedGeneration, inventory).
  const liveStatus = (run.live.status ?? {}) as Record<string, unknown>;
  const conditions = failureConditions(run, failure, reason, now);
  return { customStatus: { ...liveStatus, conditions, lastAttemptedRevision: run.job.revision }, events };
}

function failureConditions(run: ReconcileRun, failure: ReconcileFailure, reason: string, now: Date): ObjectStatus['conditions'] {
  const previous = ownPrevious(run);
  if (isStalledAgain(run) && previous) return previous.conditions;
  const generation = run.live?.metadata.generation ?? previous?.observedGeneration ?? 0;
  return markFailure(previous?.conditions ?? [], generation, categoryOf(failure), { reason, message: failure.message }, now);
}

/**
 * ownPrevious is the run's previous record when its own source wrote it. Records are keyed by
 * cluster and object key, so another source declaring the same key (a DuplicateObject) finds the
 * first source's record: its refusal must not carry that source's inventory, resources, drift or
 * conditions over into a record of its own (whose readers a token scope may limit to its source).
 */
export function ownPrevious(run: Pick<ReconcileRun, 'previous' | 'job'>): ObjectStatus | undefined {
  return run.previous?.source === run.job.source ? run.previous : undefined;
}

/** failureSummary: an API server message about a Secret may quote its data, so a Secret keeps the category and code only. */
function failureSummary(run: ReconcileRun, failure: ReconcileFailure): FailureSummary {
  const detail = failure.detail && run.ref.kind !== 'Secret' ? { detail: failure.detail } : {};
  return { category: categoryOf(failure), code: failure.code, ...detail };
}

/** categoryOf: the class decides the behaviour (a terminal failure is not retried), so it decides Stalled too. */
function categoryOf(failure: ReconcileFailure): FailureCategory {
  return failure instanceof TerminalError ? 'invalid' : failure.category;
}

/**
 * apiVersionOf: a refusal before apply (a duplicate) still says what Git declared, so the object's
 * removal from Git is a run that wakes the other declaration of its live object.
 */
function apiVersionOf(run: ReconcileRun, previous: ObjectStatus | undefined): string {
  return (run.object ?? run.live)?.apiVersion ?? run.desired?.object.apiVersion ?? previous?.apiVersion ?? '';
}

/** failureRecord is the status record of a failed run; the last applied revision stays what it was. */
export function failureRecord(run: ReconcileRun, failure: ReconcileFailure, now: Date): ObjectStatus {
  const conditions = failureConditions(run, failure, reasonFor(run.stage, failure), now);
  const object = run.object ?? run.live;
  const previous = ownPrevious(run);
  const { dependencies: _earlier, ...earlier } = previous ?? { inventory: [], conditions: [] };
  return {
    ...earlier,
    cluster: run.job.cluster,
    objectKey: run.job.objectKey,
    source: run.job.source,
    ...desiredPlace(run.desired),
    apiVersion: apiVersionOf(run, previous),
    kind: run.ref.kind,
    namespace: object?.metadata.namespace ?? previous?.namespace ?? run.ref.namespace,
    name: run.ref.name,
    generation: run.live?.metadata.generation ?? previous?.generation,
    lastAttemptedRevision: run.job.revision,
    specHash: run.specHash,
    conditions,
    failure: failureSummary(run, failure),
    unreadySince: unreadySince(run, now),
    ...keptDependencyEdges(run),
    updatedAt: now.toISOString(),
  };
}

const stageReasons: Record<StageName, string> = {
  fetch: Reason.FetchFailed,
  deletion: Reason.DeletionFailed,
  order: Reason.DependencyNotReady,
  validate: Reason.ValidationFailed,
  features: Reason.FeatureConflict,
  render: Reason.RenderFailed,
  apply: Reason.ApplyFailed,
  prune: Reason.PruneFailed,
  // A kind's act is part of applying it.
  act: Reason.ApplyFailed,
  health: Reason.HealthCheckPending,
  // Deleting a hook's run by its policy is a prune.
  hooks: Reason.PruneFailed,
  status: Reason.StatusWriteFailed,
  result: Reason.ApplyFailed,
};

/** Failure codes whose reason says more than the stage does. */
const codeReasons: Record<string, string> = {
  ImmutableFieldChanged: Reason.ImmutableFieldChanged,
  // A CR that does not exist yet is validated by its creation, in the apply stage.
  ValidationFailed: Reason.ValidationFailed,
  FeatureConflict: Reason.FeatureConflict,
  KindNotServed: Reason.KindNotServed,
  DependencyNotReady: Reason.DependencyNotReady,
  DependencyCycle: Reason.DependencyCycle,
  DependencyFailed: Reason.DependencyFailed,
  InvalidDependency: Reason.InvalidDependency,
  InvalidHealthTimeout: 'InvalidHealthTimeout',
  InvalidHook: 'InvalidHook',
  Forbidden: Reason.Forbidden,
  NotAllowed: Reason.NotAllowed,
  IdentityRequired: 'IdentityRequired',
  Unauthorized: Reason.Forbidden,
  InternalError: Reason.InternalError,
  Conflict: Reason.Conflict,
  DuplicateObject: Reason.DuplicateObject,
  PruneAwaitingConfirmation: Reason.PruneAwaitingConfirmation,
  RevisionNotAdmitted: 'RevisionNotAdmitted',
  SourceTooLarge: 'SourceTooLarge',
  CommitNotVerified: 'CommitNotVerified',
  ClusterFrozen: Reason.ClusterFrozen,
  FreezeUnknown: 'FreezeUnknown',
  SyncWindowClosed: Reason.SyncWindowClosed,
  SyncWindowUnknown: 'SyncWindowUnknown',
};

/** reasonFor is the Ready=False reason of a failure in a stage; some failure codes are more specific. */
export function reasonFor(stage: StageName, failure: ReconcileFailure): string {
  const specific = codeReasons[failure.code];
  if (specific) return specific;
  if (stage === 'fetch' && failure instanceof TerminalError) return Reason.SourceInvalid;
  return stageReasons[stage];
}
