import { applyStatus, toReconcileFailure, recordEvent, type EventInput } from '@tidemark/cluster';
import { NotReadyError, TerminalError, type KubernetesManifest, type ObjectStatus, type ReconcileFailure, type ReconcileRecord } from '@tidemark/contracts';
import type { Declaration, PipelineDependencies } from '../dependencies';
import { isDeleted, isSkipped, prunedBy, type ReconcileRun } from '../run';
import { failureReport, failureRecord, ownPrevious } from './record-failure';
import { deletionEvents, orphanedRecord } from '../deletion/stage-deletion';
import { statusWritten, type StatusResult } from './stage-status';
import { dependentTokens } from '../ordering/dependency-state';
import { DuplicateObjectError } from '../fetch/duplicate-check';
import { identityFailure } from '../fetch/tenancy';
import { wasReadyAt } from '../observe/observe-run';
import { subjectOf } from '../observe/subject';

/** RunWrite names the four kinds of write a run makes, in the order finalize makes them. */
export type RunWrite = 'status' | 'events' | 'record' | 'wake';

/**
 * RunWriters are the run's writes: the CR's /status, the Events, the status record with its
 * history, and the wake-ups (dependents waiting on it, other declarations of its live object).
 */
export interface RunWriters {
  /** Returns the CR as written, or false when its CRD has no status subresource. */
  status(about: KubernetesManifest, status: Record<string, unknown>): Promise<KubernetesManifest | false>;
  events(about: KubernetesManifest, events: readonly EventInput[]): Promise<void>;
  record(write: RecordWrite): Promise<void>;
  wake(wakes: Wakes): Promise<void>;
}

/** Wakes are the run's wake-ups: ordering tokens of its dependents, and other declarations of its live object. */
export interface Wakes {
  tokens: string[];
  declarations: Declaration[];
}

type FinalizeDependencies = Pick<PipelineDependencies, 'statusStore' | 'ordering' | 'declarations' | 'log' | 'now'>;

/**
 * finalize makes every write of a run, in one order on every path (applied, failed, deleted,
 * orphaned): the CR's /status, the Events, the status record with its history, then the
 * wake-ups. The stages only said what to write. A failed run's writes are best effort (the
 * failure is what the queue needs); an applied run whose /status or record cannot be written
 * fails, to be retried. `applied` is what the status stage said for a run that got through it.
 */
export async function finalize(run: ReconcileRun, deps: FinalizeDependencies, applied?: StatusResult, writers: RunWriters = writersOf(run, deps)): Promise<void> {
  if (run.fetched === 'skip') return;
  const now = deps.now?.() ?? new Date();
  let events: EventInput[];
  if (run.failure || !applied) {
    const said = run.failure ? failureReport(run, run.failure, now) : { events: deletionEvents(run) };
    if (said.customStatus && run.live) await writers.status(run.live, said.customStatus).catch(() => false);
    events = said.events;
  } else {
    try {
      events = [...(applied.customStatus ? statusWritten(run, applied.record, await writers.status(run.live!, applied.customStatus)) : []), ...applied.events];
    } catch (error) {
      // As if the status stage had failed: the run reports the failure instead.
      run.failure = identityFailure(run, toReconcileFailure(error, `status ${subjectOf(run)}`));
      return finalize(run, deps, undefined, writers);
    }
  }
  if (run.live) await writers.events(run.live, events);
  const write = finalizeStatus(run, now, applied?.record);
  await recordOrFail(run, writers, write, deps);
  await writers.wake({ tokens: dependentTokens(run, write.action === 'record' ? write.record : undefined), declarations: declarationsToWake(run) });
}

async function recordOrFail(run: ReconcileRun, writers: RunWriters, write: RecordWrite, deps: FinalizeDependencies): Promise<void> {
  try {
    await writers.record(write);
    if (write.action === 'record' && write.record) run.finalized = write.record;
  } catch (error) {
    if (run.failure) deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, err: String(error) }, 'could not record the failure');
    else run.failure = toReconcileFailure(error, `status ${subjectOf(run)}`);
  }
}

/** declarationsToWake: those the run found its object shares a live object with, once each. */
function declarationsToWake(run: ReconcileRun): Declaration[] {
  return [...(run.failure instanceof DuplicateObjectError ? run.failure.wake : []), ...(run.wakes ?? [])];
}

/** writersOf writes through the cluster (as the reconciler's own identity), the status store and the wake registries. */
export function writersOf(run: ReconcileRun, deps: FinalizeDependencies): RunWriters {
  const { cluster, objectKey } = run.job;
  const warn = (message: string) => (error: unknown) => deps.log?.warn({ objectKey, cluster, err: String(error) }, message);
  return {
    status: (about, status) => applyStatus(run.reportingConnection, about, status),
    events: (about, events) => recordEvents(run, deps, about, events),
    async record(write) {
      if (write.action === 'forget') await deps.statusStore.delete(cluster, objectKey);
      if (write.action !== 'record') return;
      await deps.statusStore.record(cluster, objectKey, write.record, write.history);
      if (write.revisionLive) await deps.statusStore.recordRevisionLive(run.job.source, run.job.revision, cluster, new Date());
    },
    // A failed wake is logged: the waiters' own recheck is the safety net.
    async wake({ tokens, declarations }) {
      if (tokens.length > 0) await deps.ordering?.wake(cluster, tokens).catch(warn('could not wake the objects waiting on this one'));
      for (const other of declarations) await deps.declarations?.wake(cluster, other).catch(warn(`could not wake declaration ${other.objectKey} of source ${other.source}`));
    },
  };
}

/**
 * RecordWrite is a run's one write to the status store: the record and its history entry, in one
 * transaction (`record` undefined: the record goes, the history stays); forgetting the object; or
 * nothing. `revisionLive` says the run's commit reached the cluster (for the dashboard's timelines).
 */
export type RecordWrite =
  | { action: 'record'; record: ObjectStatus | undefined; history: ReconcileRecord; revisionLive?: boolean }
  | { action: 'forget' }
  | { action: 'none' };

/**
 * finalizeStatus says what the run writes to the status store, like Flux's finalizeStatus, from
 * how the run ended. `applied` is the record the status stage built for a run that got through
 * apply. A skipped run writes nothing; an object gone from Git loses its record.
 */
export function finalizeStatus(run: ReconcileRun, now: Date, applied?: ObjectStatus): RecordWrite {
  if (isSkipped(run)) return { action: 'none' };
  if (run.failure) {
    const record = failureRecord(run, run.failure, now);
    return { action: 'record', record, history: historyEntry(run, { result: failureResult(run.failure), stage: run.stage, message: run.failure.message }) };
  }
  if (!run.desired) return removedRecord(run, now);
  if (isDeleted(run)) {
    return { action: 'record', record: undefined, history: historyEntry(run, {
      result: 'pruned', stage: 'deletion', message: `Deleted in the cluster by hand; pruned ${prunedBy(run.deletion).deleted.length} objects and will recreate it from Git.`,
    }) };
  }
  if (!applied || !run.outcome) return { action: 'none' };
  const { health, applied: { changes }, pruned } = run.outcome;
  const count = (action: string) => changes.filter((entry) => entry.action === action).length;
  return {
    action: 'record',
    record: applied,
    history: historyEntry(run, {
      result: health.status === 'Ready' ? 'succeeded' : 'progressing',
      message: health.message,
      changes: { created: count('created'), configured: count('configured'), unchanged: count('unchanged'), deleted: pruned.length },
    }),
    // When the commit reached the cluster (a resync at the same revision is not it).
    revisionLive: health.status === 'Ready' && !wasReadyAt(run),
  };
}

function historyEntry(run: ReconcileRun, outcome: Pick<ReconcileRecord, 'result'> & Partial<ReconcileRecord>): ReconcileRecord {
  const traceId = run.span.traceId;
  return { revision: run.job.revision, startedAt: run.startedAt.toISOString(), durationMs: Date.now() - run.startedAt.getTime(), ...outcome, ...(traceId ? { traceId } : {}) };
}

/** removedRecord forgets an object removed from Git, unless a prune guard orphaned it: then it stays listed, saying why. */
function removedRecord(run: ReconcileRun, now: Date): RecordWrite {
  // Another source's record of the same key (it declares the object too) is not this run's to forget.
  if (run.previous && !ownPrevious(run)) return { action: 'none' };
  if (run.deletion?.action !== 'orphaned') return { action: 'forget' };
  const record = orphanedRecord(run, run.deletion.orphaned, now);
  return { action: 'record', record, history: historyEntry(run, { result: 'skipped', stage: 'deletion', message: record.conditions[0]?.message ?? '' }) };
}

/** failureResult: a terminal failure stalls, a not-ready run waits (never counted failed), the rest failed. */
function failureResult(failure: ReconcileFailure): ReconcileRecord['result'] {
  if (failure instanceof TerminalError) return 'stalled';
  return failure instanceof NotReadyError ? 'waiting' : 'failed';
}

/**
 * recordEvents emits what a run has to say about an object as one aggregated Event (none when
 * there is nothing); a failure to record it is logged, never a reconcile failure.
 */
export async function recordEvents(run: Pick<ReconcileRun, 'job' | 'reportingConnection'>, deps: Pick<PipelineDependencies, 'log'>, about: KubernetesManifest, events: readonly EventInput[]): Promise<void> {
  const event = aggregateEvents(events);
  if (!event) return;
  try {
    await recordEvent(run.reportingConnection, about, event);
  } catch (error) {
    deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, err: String(error) }, 'could not record an event');
  }
}

/** The API server keeps an Event message up to 1,024 characters; recordEvent cuts there too. */
const messageLimit = 1024;

/**
 * aggregateEvents folds what one run has to say into one Event, as Flux does with its change
 * set: one line per thing, in the order given (the most telling first). It is a Warning if any
 * part is, named by the first Warning's reason; otherwise it is named by the first event's
 * reason. No events, no Event: an unchanged run says nothing.
 */
export function aggregateEvents(events: readonly EventInput[]): EventInput | undefined {
  const first = events[0];
  if (!first || events.length === 1) return first;
  const warning = events.find((event) => event.type === 'Warning');
  const lines: string[] = [];
  let length = 0;
  for (const [index, event] of events.entries()) {
    const rest = events.length - index - 1;
    const more = rest > 0 ? `… and ${rest} more` : '';
    if (length + event.message.length + 1 + more.length > messageLimit) {
      lines.push(`… and ${events.length - index} more`);
      break;
    }
    lines.push(event.message);
    length += event.message.length + 1;
  }
  return { type: warning ? 'Warning' : 'Normal', reason: (warning ?? first).reason, message: lines.join('\n') };
}
