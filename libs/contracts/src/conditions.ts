/** Condition follows the Kubernetes convention for status conditions. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration: number;
  /** PascalCase, stable, machine-readable. */
  reason: string;
  /** A sentence a person can act on. */
  message: string;
  /** RFC 3339; changes only when status changes. */
  lastTransitionTime: string;
}

export const ConditionType = {
  Ready: 'Ready',
  Reconciling: 'Reconciling',
  Stalled: 'Stalled',
  Drifted: 'Drifted',
} as const;

/** Reasons are constants so the dashboard, tests and alerts can rely on them. */
export const Reason = {
  Succeeded: 'ReconciliationSucceeded',
  Progressing: 'Progressing',
  FetchFailed: 'FetchFailed',
  SourceInvalid: 'SourceInvalid',
  DeletionFailed: 'DeletionFailed',
  ValidationFailed: 'ValidationFailed',
  FeatureConflict: 'FeatureConflict',
  RenderFailed: 'RenderFailed',
  ApplyFailed: 'ApplyFailed',
  ImmutableFieldChanged: 'ImmutableFieldChanged',
  PruneFailed: 'PruneFailed',
  HealthCheckPending: 'HealthCheckPending',
  StatusWriteFailed: 'StatusWriteFailed',
  ClusterUnavailable: 'ClusterUnavailable',
  Suspended: 'Suspended',
  DriftDetected: 'DriftDetected',
  NoDrift: 'NoDrift',
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/**
 * setCondition returns conditions with `next` in place of the condition of the same type.
 * lastTransitionTime moves only when the status changes, as Kubernetes expects.
 */
export function setCondition(conditions: readonly Condition[], next: Omit<Condition, 'lastTransitionTime'>, now: Date = new Date()): Condition[] {
  const previous = conditions.find((condition) => condition.type === next.type);
  const lastTransitionTime = previous && previous.status === next.status ? previous.lastTransitionTime : now.toISOString();
  const updated: Condition = { ...next, lastTransitionTime };
  return previous
    ? conditions.map((condition) => (condition.type === next.type ? updated : condition))
    : [...conditions, updated];
}

/** findCondition returns the condition of a type, if present. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}
