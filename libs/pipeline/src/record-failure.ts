import { applyStatus } from '@tidemark/cluster';
import { markProgressing, markStalled, TerminalError, type ObjectStatus, type ReconcileFailure } from '@tidemark/contracts';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';
import { reasonFor } from './failure';
import { recordEvents } from './stage-status';

/**
 * recordFailure writes a failed run's conditions: Ready=False with the stage's reason, and
 * Stalled=True for a terminal failure. The last applied revision stays what it was.
 */
export async function recordFailure(run: ReconcileRun, deps: PipelineDependencies, failure: ReconcileFailure): Promise<void> {
  const now = deps.now?.() ?? new Date();
  const reason = reasonFor(run.stage, failure);
  const conditions = failureConditions(run, failure, reason, now);
  const record = failureRecord(run, conditions, now);
  await deps.statusStore.put(record);
  await deps.statusStore.appendHistory(run.job.cluster, run.job.objectKey, {
    revision: run.job.revision, startedAt: run.startedAt.toISOString(), durationMs: Date.now() - run.startedAt.getTime(),
    result: failure instanceof TerminalError ? 'stalled' : 'failed', stage: run.stage, message: failure.message,
  });
  if (run.plugin && run.live && !run.live.metadata.deletionTimestamp) {
    // The whole status is applied again: under one field manager, a partial apply would drop
    // the fields the last successful run wrote (observedGeneration, inventory).
    const liveStatus = (run.live.status ?? {}) as Record<string, unknown>;
    await applyStatus(run.connection, run.live, { ...liveStatus, conditions, lastAttemptedRevision: run.job.revision }).catch(() => false);
  }
  if (run.live) await recordEvents(run, deps, run.live, [{ type: 'Warning', reason, message: failure.message }]);
}

function failureConditions(run: ReconcileRun, failure: ReconcileFailure, reason: string, now: Date): ObjectStatus['conditions'] {
  const generation = run.live?.metadata.generation ?? run.previous?.observedGeneration ?? 0;
  const mark = failure instanceof TerminalError ? markStalled : markProgressing;
  return mark(run.previous?.conditions ?? [], generation, { reason, message: failure.message }, now);
}

function failureRecord(run: ReconcileRun, conditions: ObjectStatus['conditions'], now: Date): ObjectStatus {
  const object = run.object ?? run.live;
  const previous = run.previous;
  return {
    ...(previous ?? { inventory: [], conditions: [] }),
    cluster: run.job.cluster,
    objectKey: run.job.objectKey,
    source: run.job.source,
    ...(run.desired ? { path: run.desired.path, line: run.desired.line } : {}),
    apiVersion: object?.apiVersion ?? previous?.apiVersion ?? '',
    kind: run.ref.kind,
    namespace: object?.metadata.namespace ?? previous?.namespace ?? run.ref.namespace,
    name: run.ref.name,
    generation: run.live?.metadata.generation ?? previous?.generation,
    lastAttemptedRevision: run.job.revision,
    specHash: run.specHash,
    conditions,
    updatedAt: now.toISOString(),
  };
}
