import { applyStatus, toReconcileFailure, type EventInput } from '@tidemark/cluster';
import type { KubernetesManifest } from '@tidemark/contracts';
import type { Declaration, PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { finalizeStatus, type RecordWrite } from './finalize-status';
import { failureReport } from './record-failure';
import { deletionEvents } from '../deletion/stage-deletion';
import { statusWritten, type StatusResult } from './stage-status';
import { recordEvents } from './events';
import { dependentTokens } from '../ordering/dependency-state';
import { DuplicateObjectError } from '../fetch/duplicate-check';
import { identityFailure } from '../fetch/tenancy';
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
