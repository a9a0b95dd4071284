import type { FailureCategory } from './errors';

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
  /** An operator froze the object's cluster: nothing is written to it until the freeze is lifted. */
  ClusterFrozen: 'ClusterFrozen',
  /** A sync window holds the object's cluster (a deny window is open, or no allow window is): nothing is written until it opens. */
  SyncWindowClosed: 'SyncWindowClosed',
  DriftDetected: 'DriftDetected',
  NoDrift: 'NoDrift',
  KindNotServed: 'KindNotServed',
  DependencyNotReady: 'DependencyNotReady',
  DependencyCycle: 'DependencyCycle',
  /** A dependency failed its health check, or did not become Ready within the health timeout. */
  DependencyFailed: 'DependencyFailed',
  InvalidDependency: 'InvalidDependency',
  HealthCheckFailed: 'HealthCheckFailed',
  Forbidden: 'Forbidden',
  /** The source's allow-list does not cover the object; nothing was sent to the cluster for it. */
  NotAllowed: 'NotAllowed',
  InternalError: 'InternalError',
  /** Two Git objects (in one source or two, spelt any way) write one live object; neither is applied or pruned. */
  DuplicateObject: 'DuplicateObject',
  Conflict: 'Conflict',
  Orphaned: 'Orphaned',
  PruneAwaitingConfirmation: 'PruneAwaitingConfirmation',
  /** Redis lost the record; it was rebuilt from the live objects carrying Tidemark's owner label, and waits for its next run. */
  RebuiltFromCluster: 'RebuiltFromCluster',
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

type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'type' | 'status' | 'observedGeneration'>;

/** markReady: everything applied and healthy. Reconciling and Stalled turn False. */
export function markReady(conditions: readonly Condition[], generation: number, input: ConditionInput, now?: Date): Condition[] {
  let next = setCondition(conditions, { type: ConditionType.Ready, status: 'True', observedGeneration: generation, ...input }, now);
  next = setCondition(next, { type: ConditionType.Reconciling, status: 'False', observedGeneration: generation, reason: input.reason, message: 'Reconciliation finished.' }, now);
  return setCondition(next, { type: ConditionType.Stalled, status: 'False', observedGeneration: generation, reason: input.reason, message: 'Not stalled.' }, now);
}

/** markProgressing: applied, but owned objects are not ready yet, or a retry is coming. */
export function markProgressing(conditions: readonly Condition[], generation: number, input: ConditionInput, now?: Date): Condition[] {
  let next = setCondition(conditions, { type: ConditionType.Ready, status: 'False', observedGeneration: generation, ...input }, now);
  next = setCondition(next, { type: ConditionType.Reconciling, status: 'True', observedGeneration: generation, ...input }, now);
  return setCondition(next, { type: ConditionType.Stalled, status: 'False', observedGeneration: generation, reason: input.reason, message: 'Not stalled.' }, now);
}

/** markStalled: a terminal failure; nothing is retried until the spec changes. */
export function markStalled(conditions: readonly Condition[], generation: number, input: ConditionInput, now?: Date): Condition[] {
  let next = setCondition(conditions, { type: ConditionType.Ready, status: 'False', observedGeneration: generation, ...input }, now);
  next = setCondition(next, { type: ConditionType.Reconciling, status: 'False', observedGeneration: generation, ...input }, now);
  return setCondition(next, { type: ConditionType.Stalled, status: 'True', observedGeneration: generation, ...input }, now);
}

/**
 * markFailed: a failure that is retried with backoff (transient, forbidden, internal). Ready and
 * Reconciling turn False, so the object shows as failing, not as making progress.
 */
export function markFailed(conditions: readonly Condition[], generation: number, input: ConditionInput, now?: Date): Condition[] {
  let next = setCondition(conditions, { type: ConditionType.Ready, status: 'False', observedGeneration: generation, ...input }, now);
  next = setCondition(next, { type: ConditionType.Reconciling, status: 'False', observedGeneration: generation, ...input }, now);
  return setCondition(next, { type: ConditionType.Stalled, status: 'False', observedGeneration: generation, reason: input.reason, message: 'Not stalled; it will be retried.' }, now);
}

/**
 * markFailure sets the conditions of a failed run by its category: invalid stalls, waiting
 * keeps Reconciling=True (it converges by itself once the dependency is there), every other
 * category is a failure retried with backoff.
 */
export function markFailure(conditions: readonly Condition[], generation: number, category: FailureCategory, input: ConditionInput, now?: Date): Condition[] {
  if (category === 'invalid') return markStalled(conditions, generation, input, now);
  if (category === 'waiting') return markProgressing(conditions, generation, input, now);
  return markFailed(conditions, generation, input, now);
}
