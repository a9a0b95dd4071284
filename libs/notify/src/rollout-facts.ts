import type { RolloutRecord } from '@tidemark/contracts';
import { boundedText } from './bounded-text';
import { maxMessageLength, NotificationReason } from './notification-event';
import type { EventDraft, TransitionFact } from './transition-fact';

/**
 * rolloutFact reads a source's rollout record: a halt is news (an error naming the cluster, the
 * object and why), and so are a rollout that completed, one an operator aborted, and a revision
 * that waits for an operator (a manual sync's pending revision, an approval). The state holds the
 * revision, so the same phase of the next rollout is news again.
 */
export function rolloutFact(record: RolloutRecord): TransitionFact {
  // A hold (a window or freeze on a gated cluster) is news once, as the rollout starts to wait.
  const state = `${record.revision}:${record.phase}${record.held ? ':held' : ''}`;
  return {
    key: `rollout|${record.source}`, at: record.updatedAt, state,
    eventFor: (previous) => (previous === state ? undefined : record.held ? heldEvent(record, record.held) : eventOf(record)),
  };
}

function eventOf(record: RolloutRecord): EventDraft | undefined {
  const base = { involvedObject: { kind: 'Source', name: record.source }, source: record.source, revision: record.revision };
  const at = `rollout of ${record.source} at ${record.revision.slice(0, 12)}`;
  const wave = record.waves[record.wave]?.name ?? String(record.wave);
  switch (record.phase) {
    case 'halted': {
      const halt = record.halt;
      const where = halt ? `${halt.cluster}${halt.objectKey ? ` ${halt.objectKey}` : ''}: ${halt.reason}` : 'its gate failed';
      return { ...base, ...(halt ? { cluster: halt.cluster } : {}), reason: NotificationReason.RolloutHalted, severity: 'error', message: boundedText(`The ${at} halted in wave ${wave} on ${where}. Later waves stay at ${record.previous?.slice(0, 12) ?? 'their revision'}; resume or abort it (tidemark rollout).`, maxMessageLength) };
    }
    case 'complete':
      return { ...base, reason: NotificationReason.RolloutComplete, severity: 'info', message: `The ${at} is complete on every wave.` };
    case 'aborted':
      return { ...base, reason: NotificationReason.RolloutAborted, severity: 'info', message: boundedText(`The ${at} was aborted${record.lastAction ? ` by ${record.lastAction.by}` : ''}: the clusters it reached return to ${record.previous?.slice(0, 12) ?? 'the last good revision'}.`, maxMessageLength) };
    case 'waiting-approval':
      return { ...base, reason: NotificationReason.RolloutWaiting, severity: 'info', message: `The ${at} waits for an operator before wave ${wave} (tidemark rollout promote or sync ${record.source}).` };
    default:
      return undefined;
  }
}

/** heldEvent: a window or freeze holds a cluster the gate waits for; the rollout waits, it does not halt. */
function heldEvent(record: RolloutRecord, held: NonNullable<RolloutRecord['held']>): EventDraft {
  const wave = record.waves[record.wave]?.name ?? String(record.wave);
  return {
    involvedObject: { kind: 'Source', name: record.source }, source: record.source, revision: record.revision, cluster: held.cluster,
    reason: NotificationReason.RolloutWaiting, severity: 'info',
    message: boundedText(`The rollout of ${record.source} at ${record.revision.slice(0, 12)} waits in wave ${wave}: ${held.cluster}: ${held.reason}. Its gate's clock stands still until writes may go there again.`, maxMessageLength),
  };
}
