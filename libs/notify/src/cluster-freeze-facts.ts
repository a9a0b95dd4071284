import { describeFreeze, type ClusterFreeze } from '@tidemark/contracts';
import { boundedText } from './bounded-text';
import { maxMessageLength, NotificationReason } from './notification-event';
import type { TransitionFact } from './transition-fact';

/**
 * clusterFreezeFact reads a cluster's freeze record: a freeze is news (an error, so alerts that
 * want errors only hear that nothing deploys there), and so is its lifting; an open cluster that
 * was never frozen is not. `now` dates the reading of an open cluster, which has no record.
 */
export function clusterFreezeFact(cluster: string, freeze: ClusterFreeze | undefined, now: Date): TransitionFact {
  const involvedObject = { kind: 'Cluster', name: cluster };
  const base = { involvedObject, cluster };
  if (freeze) {
    return {
      key: `freeze|${cluster}`, at: freeze.since, state: 'Frozen',
      eventFor: (previous) => previous === 'Frozen' ? undefined : ({ ...base, reason: NotificationReason.ClusterFrozen, severity: 'error', message: boundedText(`Cluster ${cluster} is ${describeFreeze(freeze)}. Nothing is applied or pruned there until it is unfrozen.`, maxMessageLength) }),
    };
  }
  return {
    key: `freeze|${cluster}`, at: now.toISOString(), state: 'Open',
    eventFor: (previous) => previous === 'Frozen' ? ({ ...base, reason: NotificationReason.ClusterUnfrozen, severity: 'info', message: `Cluster ${cluster} is unfrozen: its objects are reconciled again.` }) : undefined,
  };
}
