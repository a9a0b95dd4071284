import type { EventInput } from '@tidemark/cluster';
import { ConditionType, markFailed, markProgressing, markReady, Reason, setCondition, findCondition, NotReadyError, type Condition, type KubernetesManifest, type ObjectStatus, type ReconcileOutcome } from '@tidemark/contracts';
import type { Health } from '@tidemark/kinds';
import type { DesiredObject, PipelineDependencies } from '../dependencies';
import { isDeleted, isSkipped, type ApplyOutcome, type ReconcileRun } from '../run';
import { driftSummary } from '../apply/stage-apply';
import { appliedResources, withResourceVersion } from '../apply/apply-results';
import { keptEvents } from '../deletion/stage-deletion';
import { customResourceToApply } from '../render/stage-validate';
import { healthWait, unreadySince, type HealthTimeoutDependencies } from '../health/stage-health';
import { dependencyEdges } from '../ordering/dependency-state';

/**
 * StatusResult is what a run that got through apply has to say: the CR's /status (for a kind
 * plugin's CR), the status store record and the Events. finalize writes them, in that order.
 */
export interface StatusResult {
  record: ObjectStatus;
  events: EventInput[];
  /** The CR's /status: conditions, observedGeneration, revisions, inventory and the kind's own fields. */
  customStatus?: Record<string, unknown>;
}

/**
 * statusStage works out conditions, observedGeneration and revisions for the CR's /status and
 * the status store record, and the Events; it writes nothing (finalize does, then
 * statusWritten says what the write changed).
 */
/** StatusDependencies is what the status stage reads: the clock, the configured health rules and the health timeout. */
export type StatusDependencies = HealthTimeoutDependencies & Pick<PipelineDependencies, 'now' | 'healthRules'>;

export function statusStage(run: ReconcileRun, outcome: ApplyOutcome, deps: StatusDependencies): StatusResult {
  run.stage = 'status';
  const now = deps.now?.() ?? new Date();
  const generation = run.live?.metadata.generation ?? 0;
  const previousConditions = run.previous?.conditions ?? [];
  const { health, kind, applied } = outcome;
  let conditions = readyConditions(run, deps, health, { previous: previousConditions, generation, now });
  for (const condition of kind.kindConditions) conditions = setCondition(conditions, { ...condition, observedGeneration: generation }, now);
  conditions = setCondition(conditions, driftCondition(applied.drift, generation), now);

  const record = statusRecord(run, outcome, conditions, now, deps);
  const customStatus = run.plugin && run.live ? customResourceStatus(outcome, record) : undefined;
  return { record, events: eventsOf(run, outcome), ...(customStatus ? { customStatus } : {}) };
}

/**
 * readyConditions: Ready when healthy; HealthCheckFailed (failed, looked at again) when the health
 * rule says Failed or the object has not become Ready within its health timeout; else still
 * progressing towards it.
 */
function readyConditions(run: ReconcileRun, deps: StatusDependencies, health: Health, at: { previous: readonly Condition[]; generation: number; now: Date }): Condition[] {
  const { previous, generation, now } = at;
  if (health.status === 'Ready') return markReady(previous, generation, { reason: Reason.Succeeded, message: health.message }, now);
  if (health.status === 'Failed') return markFailed(previous, generation, { reason: Reason.HealthCheckFailed, message: health.message }, now);
  const wait = healthWait(run, deps, now);
  if (!wait.timedOut) return markProgressing(previous, generation, { reason: Reason.HealthCheckPending, message: health.message }, now);
  const message = `${health.message.replace(/\.?$/, '.')} Not Ready after ${wait.said}: fix what this says, or give it longer with the tidemark.dev/health-timeout annotation.`;
  return markFailed(previous, generation, { reason: Reason.HealthCheckFailed, message }, now);
}

/** statusRecord builds the status store record of a run that got through apply. */
export function statusRecord(run: ReconcileRun, outcome: ApplyOutcome, conditions: Condition[], now: Date, deps?: Pick<PipelineDependencies, 'healthRules'>): ObjectStatus {
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

function customResourceStatus(outcome: ApplyOutcome, record: ObjectStatus): Record<string, unknown> {
  return {
    observedGeneration: record.observedGeneration,
    conditions: record.conditions,
    lastAppliedRevision: record.lastAppliedRevision,
    lastAttemptedRevision: record.lastAttemptedRevision,
    inventory: record.inventory,
    ...outcome.kind.kindStatus,
  };
}

/**
 * statusWritten takes in what finalize's write of the CR's /status returned (the CR, or false
 * when its CRD has no status subresource) and returns the Events that says so.
 */
export function statusWritten(run: ReconcileRun, record: ObjectStatus, written: KubernetesManifest | false): EventInput[] {
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

function eventsOf(run: ReconcileRun, outcome: ApplyOutcome): EventInput[] {
  const events: EventInput[] = driftEvents(run, outcome.applied.drift);
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

/** desiredPlace is where Git declares an object, for its status: file and line, or its render unit. */
export function desiredPlace(desired: DesiredObject | undefined): Pick<ObjectStatus, 'path' | 'line' | 'renderUnit'> {
  if (!desired) return {};
  return { path: desired.path, line: desired.line, ...(desired.unit ? { renderUnit: desired.unit } : {}) };
}

/**
 * resultStage decides when the object is looked at again, as controller-runtime's
 * Result{RequeueAfter}: a healthy object at the resync interval (the safety net behind watches),
 * one still progressing soon, one waiting for a dependency after the wait it names, a CR deleted
 * by hand while still in Git at once (to recreate it), a removed object never. Any other failure
 * is thrown for the queue: terminal stalls, the rest is retried with backoff.
 */
export function resultStage(run: ReconcileRun, deps: Pick<PipelineDependencies, 'options' | 'now'>): ReconcileOutcome {
  if (run.failure instanceof NotReadyError) return { kind: 'requeue', afterMs: run.failure.requeueAfterMs };
  if (run.failure) throw run.failure;
  run.stage = 'result';
  if (isSkipped(run)) return skipped(run);
  if (isDeleted(run)) return run.desired ? { kind: 'requeue', afterMs: 1_000 } : { kind: 'done' };
  if (!run.desired) return { kind: 'done' };
  if (run.outcome?.health.status !== 'Ready') return { kind: 'requeue', afterMs: progressingDelay(run, deps) };
  return { kind: 'requeue', afterMs: deps.options?.resyncIntervalMs ?? 300_000, resync: true };
}

/** skipped: a suspended object is done; a stalled one is done and says it is still stalled, so the queue's cache keeps it. */
function skipped(run: ReconcileRun): ReconcileOutcome {
  const stalled = findCondition(run.previous?.conditions, ConditionType.Stalled);
  if (run.previous?.suspended || stalled?.status !== 'True') return { kind: 'done' };
  return { kind: 'done', stalled: { code: stalled.reason, message: stalled.message } };
}

/**
 * progressingDelay looks again soon after a change, then less often the longer the objects
 * stay unready (a quarter of the time waited so far), never later than the resync interval.
 */
function progressingDelay(run: ReconcileRun, deps: Pick<PipelineDependencies, 'options' | 'now'>): number {
  const minimum = deps.options?.progressingRequeueMs ?? 5_000;
  const maximum = deps.options?.resyncIntervalMs ?? 300_000;
  const since = run.previous?.conditions.find((condition) => condition.type === 'Ready' && condition.status === 'False')?.lastTransitionTime;
  const waited = since ? (deps.now?.() ?? new Date()).getTime() - Date.parse(since) : 0;
  return Math.round(Math.min(maximum, Math.max(minimum, waited / 4)));
}
