import { ConditionType, findCondition, Reason, verdictOf, type ObjectStatus } from '@tidemark/contracts';
import { boundedText } from './bounded-text';
import { maxMessageLength, NotificationReason, type InvolvedObject } from './notification-event';
import type { EventDraft, TransitionFact } from './transition-fact';

/**
 * objectFacts reads an object's status record as two facts: readiness (its verdict: Ready;
 * Reconciling and Waiting are Progressing, news but no error; Failed is NotReady; Stalled) and drift.
 * Unknown is no news. While its cluster is unavailable the record says so
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
  // While its cluster is unavailable, the cluster's alert says it for every object.
  if (findCondition(status.conditions, ConditionType.Ready)?.reason === Reason.ClusterUnavailable) return undefined;
  const { state, reason, message } = verdictOf(status);
  const [key] = objectFactKeys(status.cluster, status.objectKey);
  const base = baseOf(status);
  if (state === 'Stalled') {
    return { key: key!, at: status.updatedAt, state: `Stalled:${reason}`, eventFor: () => ({ ...base, reason: NotificationReason.Stalled, severity: 'error', message: text(`${describe(status)} is stalled (${reason}): ${message}`) }) };
  }
  if (state === 'Ready') {
    // A first sight of a Ready object (a new one, or every object at a first start) is no news.
    return { key: key!, at: status.updatedAt, state: 'Ready', eventFor: (previous) => previous === undefined ? undefined : ({ ...base, reason: NotificationReason.Ready, severity: 'info', message: text(`${describe(status)} is Ready: ${message}`) }) };
  }
  if (state === 'Reconciling' || state === 'Waiting') {
    return { key: key!, at: status.updatedAt, state: `Progressing:${reason}`, eventFor: () => ({ ...base, reason: NotificationReason.Progressing, severity: 'info', message: text(`${describe(status)} is not Ready yet (${reason}): ${message}`) }) };
  }
  if (state === 'Unknown') return undefined;
  return { key: key!, at: status.updatedAt, state: `NotReady:${reason}`, eventFor: () => ({ ...base, reason: NotificationReason.NotReady, severity: 'error', message: text(`${describe(status)} is not Ready (${reason}): ${message}`) }) };
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
