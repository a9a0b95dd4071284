import { ConditionType, findCondition, Reason, type ObjectStatus } from '@tidemark/contracts';
import { boundedText } from './bounded-text';
import { maxMessageLength, NotificationReason, type InvolvedObject } from './notification-event';
import type { EventDraft, TransitionFact } from './transition-fact';

/** Reasons of Ready=False that mean "not yet", not "failed": rolling out, waiting, paused. */
const progressingReasons: ReadonlySet<string> = new Set([
  Reason.Progressing, Reason.HealthCheckPending, Reason.DependencyNotReady, Reason.Suspended, Reason.PruneAwaitingConfirmation,
]);

/**
 * objectFacts reads an object's status record as two facts: readiness (Ready, Progressing,
 * NotReady or Stalled, by reason) and drift. While its cluster is unavailable the record says so
 * for every object; that is the cluster's alert, so readiness is then left as it was.
 */
export function objectFacts(status: ObjectStatus): TransitionFact[] {
  const facts: TransitionFact[] = [];
  const readiness = readinessFact(status);
  if (readiness) facts.push(readiness);
  facts.push(driftFact(status));
  return facts;
}

/** objectFactKeys are the keys objectFacts uses for one object, to forget them when it is deleted. */
export function objectFactKeys(cluster: string, objectKey: string): string[] {
  return [`object|${cluster}|${objectKey}|ready`, `object|${cluster}|${objectKey}|drift`];
}

function readinessFact(status: ObjectStatus): TransitionFact | undefined {
  const ready = findCondition(status.conditions, ConditionType.Ready);
  if (!ready || ready.reason === Reason.ClusterUnavailable) return undefined;
  const stalled = findCondition(status.conditions, ConditionType.Stalled);
  const [key] = objectFactKeys(status.cluster, status.objectKey);
  const base = baseOf(status);
  if (stalled?.status === 'True') {
    return { key: key!, at: status.updatedAt, state: `Stalled:${stalled.reason}`, eventFor: () => ({ ...base, reason: NotificationReason.Stalled, severity: 'error', message: text(`${describe(status)} is stalled (${stalled.reason}): ${stalled.message}`) }) };
  }
  if (ready.status === 'True') {
    // A first sight of a Ready object (a new one, or every object at a first start) is no news.
    return { key: key!, at: status.updatedAt, state: 'Ready', eventFor: (previous) => previous === undefined ? undefined : ({ ...base, reason: NotificationReason.Ready, severity: 'info', message: text(`${describe(status)} is Ready: ${ready.message}`) }) };
  }
  if (progressingReasons.has(ready.reason)) {
    return { key: key!, at: status.updatedAt, state: `Progressing:${ready.reason}`, eventFor: () => ({ ...base, reason: NotificationReason.Progressing, severity: 'info', message: text(`${describe(status)} is not Ready yet (${ready.reason}): ${ready.message}`) }) };
  }
  return { key: key!, at: status.updatedAt, state: `NotReady:${ready.reason}`, eventFor: () => ({ ...base, reason: NotificationReason.NotReady, severity: 'error', message: text(`${describe(status)} is not Ready (${ready.reason}): ${ready.message}`) }) };
}

function driftFact(status: ObjectStatus): TransitionFact {
  const drifted = findCondition(status.conditions, ConditionType.Drifted);
  const key = objectFactKeys(status.cluster, status.objectKey)[1]!;
  const base = baseOf(status);
  if (drifted?.status === 'True') {
    return { key, at: status.updatedAt, state: 'Drifted', eventFor: () => ({ ...base, reason: NotificationReason.DriftDetected, severity: 'error', message: text(`${describe(status)} drifted from Git: ${drifted.message}`) }) };
  }
  // The pipeline says "Healed: …" for the one run that put drifted fields back.
  if (drifted?.message.startsWith('Healed:')) {
    return { key, at: status.updatedAt, state: `Healed:${drifted.lastTransitionTime}:${status.updatedAt}`, eventFor: () => ({ ...base, reason: NotificationReason.DriftHealed, severity: 'info', message: text(`${describe(status)}: drift corrected. ${drifted.message}`) }) };
  }
  return {
    key, at: status.updatedAt, state: 'InSync',
    eventFor: (previous) => previous === 'Drifted' ? ({ ...base, reason: NotificationReason.DriftHealed, severity: 'info', message: text(`${describe(status)} matches Git again.`) }) : undefined,
  };
}

function baseOf(status: ObjectStatus): Pick<EventDraft, 'involvedObject' | 'source' | 'cluster' | 'revision'> {
  const involvedObject: InvolvedObject = { kind: status.kind, apiVersion: status.apiVersion, name: status.name, objectKey: status.objectKey, ...(status.namespace ? { namespace: status.namespace } : {}) };
  const revision = status.lastAttemptedRevision ?? status.lastAppliedRevision;
  return { involvedObject, source: status.source, cluster: status.cluster, ...(revision ? { revision } : {}) };
}

function describe(status: ObjectStatus): string {
  const name = status.namespace ? `${status.namespace}/${status.name}` : status.name;
  return `${status.kind} ${name} on cluster ${status.cluster}`;
}

function text(message: string): string {
  return boundedText(message, maxMessageLength);
}
