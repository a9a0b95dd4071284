import { ConditionType, Reason, type Condition } from './conditions';
import type { FailureSummary } from './status';

/** VerdictState is an object's one-word state on a cluster, in order of urgency: Stalled, Failed, Waiting, Reconciling, Ready, Unknown. */
export type VerdictState = 'Stalled' | 'Failed' | 'Waiting' | 'Reconciling' | 'Ready' | 'Unknown';

/** Verdict is what an object's status record says of it, with the reason and the sentence behind it. */
export interface Verdict {
  state: VerdictState;
  /** The deciding condition's PascalCase reason (or the failure's code); empty when Unknown without a condition. */
  reason: string;
  message: string;
}

/**
 * VerdictInput is what verdictOf reads of a status record: its conditions and the last run's
 * failure (an ObjectStatus, or the dashboard API's copy of one).
 */
export interface VerdictInput {
  conditions: ReadonlyArray<Pick<Condition, 'type' | 'reason' | 'message'> & { status: string }>;
  failure?: (Pick<FailureSummary, 'code'> & { category: string }) | undefined;
}

/**
 * Ready=False reasons that mean the object waits for something else (a dependency, a prune
 * confirmation, a resume): never its own failure. DependencyFailed is one: the dependency failed,
 * and its own verdict says so; this object is applied the moment it is Ready.
 */
const waitingReasons: ReadonlySet<string> = new Set([Reason.DependencyNotReady, Reason.DependencyFailed, Reason.PruneAwaitingConfirmation, Reason.Suspended]);
/** Ready=False reasons that mean it is on its way: applied, not healthy yet. */
const progressReasons: ReadonlySet<string> = new Set([Reason.Progressing, Reason.HealthCheckPending]);

/**
 * verdictOf is the one reading of an object's status record, for the dashboard, notifications,
 * commit statuses and the CLI. In order: Stalled=True is Stalled; a recorded failure is Waiting
 * when it is of the `waiting` category or a dependency's failure (DependencyFailed), else Failed;
 * Reconciling=True is Reconciling; Ready=True is Ready; Ready=False is Reconciling, Waiting or
 * Failed by its reason; no Ready condition (or Ready=Unknown) is Unknown.
 */
export function verdictOf(record: VerdictInput): Verdict {
  const stalled = conditionOf(record, ConditionType.Stalled);
  if (stalled?.status === 'True') return from('Stalled', stalled);
  const ready = conditionOf(record, ConditionType.Ready);
  if (record.failure) return failureVerdict(record.failure, ready);
  const reconciling = conditionOf(record, ConditionType.Reconciling);
  if (reconciling?.status === 'True') return from('Reconciling', ready?.status === 'False' ? ready : reconciling);
  if (!ready) return { state: 'Unknown', reason: '', message: 'No run has recorded a Ready condition yet.' };
  if (ready.status === 'True') return from('Ready', ready);
  if (ready.status !== 'False') return from('Unknown', ready);
  if (progressReasons.has(ready.reason)) return from('Reconciling', ready);
  return from(waitingReasons.has(ready.reason) ? 'Waiting' : 'Failed', ready);
}

/** failureVerdict: a recorded failure waits (its category, or a dependency's failure) or failed; Ready=False says why. */
function failureVerdict(failure: NonNullable<VerdictInput['failure']>, ready: RecordCondition | undefined): Verdict {
  const waiting = failure.category === 'waiting' || failure.code === Reason.DependencyFailed || waitingReasons.has(ready?.reason ?? '');
  const state: VerdictState = waiting ? 'Waiting' : 'Failed';
  return ready?.status === 'False' ? from(state, ready) : { state, reason: failure.code, message: ready?.message ?? '' };
}

/**
 * Settlement is where a verdict leaves the change it judged: `done` (Ready), `failed` (no retry
 * changes it by itself: Stalled, a terminal failure, or Failed by its health check, the workload's
 * own failure), or `pending` (Reconciling, Waiting, Unknown, or any other Failed, which is retried
 * with backoff). A commit status reads it; so does anything that waits for a change to land.
 */
export type Settlement = 'done' | 'failed' | 'pending';

/** settlementOf reads a verdict's Settlement: its state, and for Failed whether the health check failed. */
export function settlementOf(verdict: Verdict): Settlement {
  if (verdict.state === 'Ready') return 'done';
  if (verdict.state === 'Stalled' || (verdict.state === 'Failed' && verdict.reason === Reason.HealthCheckFailed)) return 'failed';
  return 'pending';
}

type RecordCondition = VerdictInput['conditions'][number];

function conditionOf(record: VerdictInput, type: string): RecordCondition | undefined {
  return record.conditions.find((condition) => condition.type === type);
}

function from(state: VerdictState, condition: Pick<Condition, 'reason' | 'message'>): Verdict {
  return { state, reason: condition.reason, message: condition.message };
}
