import type { ClusterHealth } from '@tidemark/contracts';
import { boundedText } from './bounded-text';
import { maxMessageLength, NotificationReason } from './notification-event';
import type { TransitionFact } from './transition-fact';

/**
 * clusterFact reads a cluster's health record: Unavailable is an error, Available after it is
 * news, a first Available is not. Unknown (never checked yet) is no state at all.
 */
export function clusterFact(health: ClusterHealth): TransitionFact | undefined {
  if (health.state === 'Unknown') return undefined;
  const involvedObject = { kind: 'Cluster', name: health.cluster };
  const base = { involvedObject, cluster: health.cluster };
  if (health.state === 'Unavailable') {
    const why = health.message ?? 'it does not answer its health checks';
    return {
      key: `cluster|${health.cluster}`, at: health.lastCheck, state: 'Unavailable',
      eventFor: () => ({ ...base, reason: NotificationReason.ClusterUnavailable, severity: 'error', message: boundedText(`Cluster ${health.cluster} is unavailable since ${health.since}: ${why}. Its queue is paused.`, maxMessageLength) }),
    };
  }
  return {
    key: `cluster|${health.cluster}`, at: health.lastCheck, state: 'Available',
    eventFor: (previous) => previous === 'Unavailable' ? ({ ...base, reason: NotificationReason.ClusterAvailable, severity: 'info', message: `Cluster ${health.cluster} is available again since ${health.since}.` }) : undefined,
  };
}
