import { applyStatus, type EventInput } from '@tidemark/cluster';
import { ConditionType, markFailed, markProgressing, markReady, Reason, setCondition, type Condition, type KubernetesManifest, type ObjectStatus } from '@tidemark/contracts';
import type { Health } from '@tidemark/kinds';
import type { PipelineDependencies } from './dependencies';
import type { ApplyOutcome, ReconcileRun } from './run';
import { desiredPlace } from './desired-place';
import { driftSummary } from './drift-check';
import { appliedResources } from './applied-resources';
import { keptEvents } from './record-deletion';
import { withResourceVersion } from './applied-versions';
import { customResourceToApply } from './stage-validate';
import { healthWait, unreadySince } from './health-timeout';
import { dependencyEdges } from './ordering/dependency-edges';

/** StatusResult is the status store record finalizeStatus writes, and the Events to emit after it. */
export interface StatusResult {
  record: ObjectStatus;
  events: EventInput[];
}

/**
 * statusStage writes conditions, observedGeneration and revisions to the CR's /status. It returns
 * the status store record, which finalizeStatus writes, and the Events, which reconcile emits
 * after that write so that the status is visible without waiting for them.
 */
export async function statusStage(run: ReconcileRun, outcome: ApplyOutcome, deps: PipelineDependencies): Promise<StatusResult> {
  run.stage = 'status';
  const now = deps.now?.() ?? new Date();
  const generation = run.live?.metadata.generation ?? 0;
  const previousConditions = run.previous?.conditions ?? [];
  const { health, kind, applied } = outcome;
  let conditions = readyConditions(run, deps, health, { previous: previousConditions, generation, now });
  for (const condition of kind.kindConditions) conditions = setCondition(conditions, { ...condition, observedGeneration: generation }, now);
  conditions = setCondition(conditions, driftCondition(applied.drift, generation), now);

  const record = statusRecord(run, outcome, conditions, now, deps);
  const events: EventInput[] = [];
  if (run.plugin && run.live) events.push(...(await writeCustomResourceStatus(run, outcome, record)));
  return { record, events: eventsOf(run, outcome, events) };
}

/**
 * readyConditions: Ready when healthy; HealthCheckFailed (failed, looked at again) when the health
 * rule says Failed or the object has not become Ready within its health timeout; else still
 * progressing towards it.
 */
function readyConditions(run: ReconcileRun, deps: PipelineDependencies, health: Health, at: { previous: readonly Condition[]; generation: number; now: Date }): Condition[] {
  const { previous, generation, now } = at;
  if (health.status === 'Ready') return markReady(previous, generation, { reason: Reason.Succeeded, message: health.message }, now);
  if (health.status === 'Failed') return markFailed(previous, generation, { reason: Reason.HealthCheckFailed, message: health.message }, now);
  const wait = healthWait(run, deps, now);
  if (!wait.timedOut) return markProgressing(previous, generation, { reason: Reason.HealthCheckPending, message: health.message }, now);
  const message = `${health.message.replace(/\.?$/, '.')} Not Ready after ${wait.said}: fix what this says, or give it longer with the tidemark.dev/health-timeout annotation.`;
  return markFailed(previous, generation, { reason: Reason.HealthCheckFailed, message }, now);
}

/** statusRecord builds the status store record of a run that got through apply. */
export function statusRecord(run: ReconcileRun, outcome: ApplyOutcome, conditions: Condition[], now: Date, deps?: PipelineDependencies): ObjectStatus {
  const object = run.object ?? run.live;
  return {
    cluster: run.job.cluster,
    objectKey: run.job.objectKey,
    source: run.job.source,
    ...desiredPlace(run.desired),
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
    inventory: outcome.applied.inventory,
    kindStatus: outcome.kind.kindStatus,
    warnings: [...outcome.applied.warnings, ...outcome.kept.map((kept) => `Not pruned: ${kept.reason}`)],
    resources: appliedResources(outcome.applied.changes, run.healthRules?.rules ?? deps?.healthRules),
    appliedVersions: outcome.applied.versions,
    ...(outcome.health.status === 'Ready' ? {} : { unreadySince: unreadySince(run, now) }),
    ...dependencyEdges(run),
    ...(outcome.applied.drift.reported.length > 0 ? { drift: outcome.applied.drift.reported } : {}),
    updatedAt: now.toISOString(),
  };
}

/** driftCondition: Drifted=True while reported drift stays; healed drift is said once, as an event. */
function driftCondition(drift: ApplyOutcome['applied']['drift'], generation: number): Omit<Condition, 'lastTransitionTime'> {
  const { reported, healed } = drift;
  if (reported.length > 0) return { type: ConditionType.Drifted, status: 'True', observedGeneration: generation, reason: Reason.DriftDetected, message: driftSummary(reported) };
  const message = healed.length > 0 ? `Healed: ${driftSummary(healed)}` : 'The cluster matches Git.';
  return { type: ConditionType.Drifted, status: 'False', observedGeneration: generation, reason: Reason.NoDrift, message };
}

/** writeCustomResourceStatus writes the CR's /status; it returns the events that says it could not. */
async function writeCustomResourceStatus(run: ReconcileRun, outcome: ApplyOutcome, record: ObjectStatus): Promise<EventInput[]> {
  const status = {
    observedGeneration: record.observedGeneration,
    conditions: record.conditions,
    lastAppliedRevision: record.lastAppliedRevision,
    lastAttemptedRevision: record.lastAttemptedRevision,
    inventory: record.inventory,
    ...outcome.kind.kindStatus,
  };
  const written = await applyStatus(run.reportingConnection, run.live as KubernetesManifest, status);
  if (written) {
    // The status write moved the CR's resourceVersion; its spec is still the one applied.
    if (run.object && record.appliedVersions) record.appliedVersions = withResourceVersion(record.appliedVersions, customResourceToApply(run), written);
    return [];
  }
  const warning = `The ${run.ref.kind} CRD on cluster ${run.job.cluster} has no status subresource, so status is kept in Tidemark's status store only. Add "subresources: {status: {}}" to the CRD to see it with kubectl.`;
  record.warnings = [...(record.warnings ?? []), warning];
  // Said once, when it starts to hold, not on every run.
  if (run.previous?.warnings?.includes(warning)) return [];
  return [{ type: 'Warning', reason: 'StatusSubresourceMissing', message: warning }];
}

function eventsOf(run: ReconcileRun, outcome: ApplyOutcome, earlier: readonly EventInput[]): EventInput[] {
  const events: EventInput[] = [...earlier, ...driftEvents(run, outcome.applied.drift)];
  for (const change of outcome.applied.changes) {
    if (change.action === 'created' || change.action === 'configured') {
      events.push({ type: 'Normal', reason: change.action === 'created' ? 'Created' : 'Updated', message: `${change.subject} ${change.action} from ${run.job.source} at ${run.job.revision.slice(0, 12)}` });
    }
  }
  for (const entry of outcome.pruned) events.push({ type: 'Normal', reason: 'Pruned', message: `${entry.subject} pruned: it left the inventory` });
  events.push(...keptEvents(outcome.kept).filter((event) => !run.previous?.warnings?.includes(event.message)));
  return events;
}

function driftEvents(run: ReconcileRun, drift: ApplyOutcome['applied']['drift']): EventInput[] {
  const events: EventInput[] = [];
  if (drift.healed.length > 0) events.push({ type: 'Normal', reason: 'DriftHealed', message: `Re-applied from Git: ${driftSummary(drift.healed)}` });
  const known = new Set((run.previous?.drift ?? []).map((item) => `${item.object}${item.path}`));
  if (drift.reported.some((item) => !known.has(`${item.object}${item.path}`))) {
    events.push({ type: 'Warning', reason: 'DriftDetected', message: `${driftSummary(drift.reported)} The drift policy is report, so it is left in place.` });
  }
  return events;
}
