import { boundedText } from './bounded-text';
import { maxMessageLength, NotificationReason } from './notification-event';
import type { TransitionFact } from './transition-fact';

/**
 * syncWindowFact reads whether a cluster's sync windows hold it for every source: a window
 * starting to hold is news, and so is its letting go; a cluster never held is not. Both are info:
 * windows are planned, unlike a freeze. `description` says which window and until when.
 */
export function syncWindowFact(cluster: string, hold: { description: string } | undefined, now: Date): TransitionFact {
  const base = { involvedObject: { kind: 'Cluster', name: cluster }, cluster };
  if (hold) {
    return {
      key: `window|${cluster}`, at: now.toISOString(), state: 'Held',
      eventFor: (previous) => previous === 'Held' ? undefined : ({ ...base, reason: NotificationReason.SyncWindowHolding, severity: 'info', message: boundedText(`Cluster ${cluster} is held by its sync windows: ${hold.description}. Nothing is applied or pruned there until they let go.`, maxMessageLength) }),
    };
  }
  return {
    key: `window|${cluster}`, at: now.toISOString(), state: 'Open',
    eventFor: (previous) => previous === 'Held' ? ({ ...base, reason: NotificationReason.SyncWindowOpen, severity: 'info', message: `Cluster ${cluster} is out of its sync windows: its objects are reconciled again.` }) : undefined,
  };
}
