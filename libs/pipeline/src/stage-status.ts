import { applyStatus, recordEvent, describe, type EventInput } from '@tidemark/cluster';
import { markProgressing, markReady, Reason, setCondition, type Condition, type KubernetesManifest, type ObjectStatus } from '@tidemark/contracts';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';

/** statusStage writes conditions, observedGeneration and revisions to the CR's /status and the status store, and emits Events. */
export async function statusStage(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  run.stage = 'status';
  const now = deps.now?.() ?? new Date();
  const generation = run.live?.metadata.generation ?? 0;
  const previousConditions = run.previous?.conditions ?? [];
  let conditions = run.health.status === 'Ready'
    ? markReady(previousConditions, generation, { reason: Reason.Succeeded, message: run.health.message }, now)
    : markProgressing(previousConditions, generation, { reason: Reason.HealthCheckPending, message: run.health.message }, now);
  for (const condition of run.kindConditions) conditions = setCondition(conditions, { ...condition, observedGeneration: generation }, now);

  const record = statusRecord(run, conditions, now);
  if (run.plugin && run.live) await writeCustomResourceStatus(run, record);
  await deps.statusStore.put(record);
  await emitEvents(run, deps);
}

/** statusRecord builds the status store record of a run that got through apply. */
export function statusRecord(run: ReconcileRun, conditions: Condition[], now: Date): ObjectStatus {
  const object = run.object ?? run.live;
  return {
    cluster: run.job.cluster,
    objectKey: run.job.objectKey,
    source: run.job.source,
    ...(run.desired ? { path: run.desired.path, line: run.desired.line } : {}),
    apiVersion: object?.apiVersion ?? run.previous?.apiVersion ?? '',
    kind: run.ref.kind,
    namespace: object?.metadata.namespace ?? '',
    name: run.ref.name,
    generation: run.live?.metadata.generation,
    observedGeneration: run.live?.metadata.generation,
    lastAppliedRevision: run.job.revision,
    lastAttemptedRevision: run.job.revision,
    specHash: run.specHash,
    conditions,
    inventory: run.inventory,
    kindStatus: run.kindStatus,
    warnings: run.warnings,
    ...(run.previous?.drift ? { drift: run.previous.drift } : {}),
    ...(run.previous?.suspended ? { suspended: true } : {}),
    updatedAt: now.toISOString(),
  };
}

async function writeCustomResourceStatus(run: ReconcileRun, record: ObjectStatus): Promise<void> {
  const status = {
    observedGeneration: record.observedGeneration,
    conditions: record.conditions,
    lastAppliedRevision: record.lastAppliedRevision,
    lastAttemptedRevision: record.lastAttemptedRevision,
    inventory: record.inventory,
    ...run.kindStatus,
  };
  const written = await applyStatus(run.connection, run.live as KubernetesManifest, status);
  if (written) return;
  const warning = `The ${run.ref.kind} CRD on cluster ${run.job.cluster} has no status subresource, so status is kept in Tidemark's status store only. Add "subresources: {status: {}}" to the CRD to see it with kubectl.`;
  record.warnings = [...(record.warnings ?? []), warning];
  // Said once, when it starts to hold, not on every run.
  if (!run.previous?.warnings?.includes(warning)) run.events.push({ type: 'Warning', reason: 'StatusSubresourceMissing', message: warning });
}

async function emitEvents(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  const about = run.live;
  if (!about) return;
  const events: EventInput[] = [...run.events];
  for (const change of run.changes) {
    if (change.action === 'created' || change.action === 'configured') {
      events.push({ type: 'Normal', reason: change.action === 'created' ? 'Created' : 'Updated', message: `${change.subject} ${change.action} from ${run.job.source} at ${run.job.revision.slice(0, 12)}` });
    }
  }
  for (const entry of run.pruned) events.push({ type: 'Normal', reason: 'Pruned', message: `${describe({ kind: entry.kind, metadata: entry })} pruned: it left the inventory` });
  await recordEvents(run, deps, about, events);
}

/** recordEvents emits events; a failure to record one is logged, never a reconcile failure. */
export async function recordEvents(run: ReconcileRun, deps: PipelineDependencies, about: KubernetesManifest, events: EventInput[]): Promise<void> {
  for (const event of events.slice(0, 20)) {
    try {
      await recordEvent(run.connection, about, event);
    } catch (error) {
      deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, err: String(error) }, 'could not record an event');
    }
  }
}
