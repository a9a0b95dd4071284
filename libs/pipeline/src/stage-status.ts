import { applyStatus, recordEvent, describe, type EventInput } from '@tidemark/cluster';
import { ConditionType, markProgressing, markReady, Reason, setCondition, type Condition, type KubernetesManifest, type ObjectStatus } from '@tidemark/contracts';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';
import { driftSummary } from './drift-check';

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
  conditions = setCondition(conditions, driftCondition(run, generation), now);

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
    ...(run.drift.reported.length > 0 ? { drift: run.drift.reported } : {}),
    ...(run.previous?.suspended ? { suspended: true } : {}),
    updatedAt: now.toISOString(),
  };
}

/** driftCondition: Drifted=True while reported drift stays; healed drift is said once, as an event. */
function driftCondition(run: ReconcileRun, generation: number): Omit<Condition, 'lastTransitionTime'> {
  const { reported, healed } = run.drift;
  if (reported.length > 0) return { type: ConditionType.Drifted, status: 'True', observedGeneration: generation, reason: Reason.DriftDetected, message: driftSummary(reported) };
  const message = healed.length > 0 ? `Healed: ${driftSummary(healed)}` : 'The cluster matches Git.';
  return { type: ConditionType.Drifted, status: 'False', observedGeneration: generation, reason: Reason.NoDrift, message };
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
  const events: EventInput[] = [...run.events, ...driftEvents(run)];
  for (const change of run.changes) {
    if (change.action === 'created' || change.action === 'configured') {
      events.push({ type: 'Normal', reason: change.action === 'created' ? 'Created' : 'Updated', message: `${change.subject} ${change.action} from ${run.job.source} at ${run.job.revision.slice(0, 12)}` });
    }
  }
  for (const entry of run.pruned) events.push({ type: 'Normal', reason: 'Pruned', message: `${describe({ kind: entry.kind, metadata: entry })} pruned: it left the inventory` });
  await recordEvents(run, deps, about, events);
}

function driftEvents(run: ReconcileRun): EventInput[] {
  const events: EventInput[] = [];
  if (run.drift.healed.length > 0) events.push({ type: 'Normal', reason: 'DriftHealed', message: `Re-applied from Git: ${driftSummary(run.drift.healed)}` });
  const known = new Set((run.previous?.drift ?? []).map((item) => `${item.object}${item.path}`));
  if (run.drift.reported.some((item) => !known.has(`${item.object}${item.path}`))) {
    events.push({ type: 'Warning', reason: 'DriftDetected', message: `${driftSummary(run.drift.reported)} The drift policy is report, so it is left in place.` });
  }
  return events;
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
