import { Reason, TerminalError, type ReconcileFailure } from '@tidemark/contracts';
import type { StageName } from './run';

const stageReasons: Record<StageName, string> = {
  fetch: Reason.FetchFailed,
  deletion: Reason.DeletionFailed,
  validate: Reason.ValidationFailed,
  features: Reason.FeatureConflict,
  render: Reason.RenderFailed,
  apply: Reason.ApplyFailed,
  prune: Reason.PruneFailed,
  // A kind's act is part of applying it.
  act: Reason.ApplyFailed,
  health: Reason.HealthCheckPending,
  status: Reason.StatusWriteFailed,
  result: Reason.ApplyFailed,
};

/** reasonFor is the Ready=False reason of a failure in a stage; some failure codes are more specific. */
export function reasonFor(stage: StageName, failure: ReconcileFailure): string {
  if (failure.code === 'ImmutableFieldChanged') return Reason.ImmutableFieldChanged;
  if (failure.code === 'FeatureConflict') return Reason.FeatureConflict;
  if (failure.code === 'KindNotServed') return 'KindNotServed';
  if (stage === 'fetch' && failure instanceof TerminalError) return Reason.SourceInvalid;
  return stageReasons[stage];
}
