import { Reason, TerminalError, type ReconcileFailure } from '@tidemark/contracts';
import type { StageName } from '../run';

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
