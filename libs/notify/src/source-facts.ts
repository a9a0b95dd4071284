import type { SourceStatus } from '@tidemark/contracts';
import { boundedText } from './bounded-text';
import { maxMessageLength, NotificationReason } from './notification-event';
import type { TransitionFact } from './transition-fact';

/**
 * sourceFact reads the poller's record of a source: a failed poll (fetch, credentials, commit
 * verification) and a degraded source (files that cannot be read or rendered) are errors; ok
 * after either is news. A suspended source, or one never polled, is left as it was.
 */
export function sourceFact(source: string, status: SourceStatus): TransitionFact | undefined {
  const key = `source|${source}`;
  const at = status.polledAt ?? '';
  const base = { involvedObject: { kind: 'Source', name: source }, source, ...(status.revision ? { revision: status.revision } : {}) };
  switch (status.state) {
    case 'error':
      return {
        key, at, state: 'error',
        eventFor: () => ({ ...base, reason: NotificationReason.SourceFailed, severity: 'error', message: boundedText(`Source ${source} could not be polled: ${status.error ?? 'no reason recorded'}`, maxMessageLength) }),
      };
    case 'degraded':
      return { key, at, state: 'degraded', eventFor: () => ({ ...base, reason: NotificationReason.SourceDegraded, severity: 'error', message: boundedText(degradedMessage(source, status), maxMessageLength) }) };
    case 'ok':
      return {
        key, at, state: 'ok',
        eventFor: (previous) => previous === 'error' || previous === 'degraded' ? ({ ...base, reason: NotificationReason.SourceRecovered, severity: 'info', message: `Source ${source} is polled and read without errors again${status.revision ? ` at ${status.revision.slice(0, 12)}` : ''}.` }) : undefined,
      };
    default:
      return undefined;
  }
}

function degradedMessage(source: string, status: SourceStatus): string {
  const count = status.sourceErrors ?? status.problems?.length ?? 0;
  const first = status.problems?.[0];
  const where = first ? ` First: ${first.path}${first.line ? `:${first.line}` : ''}: ${first.message}` : '';
  return `Source ${source} has ${count} file${count === 1 ? '' : 's'} that cannot be read or rendered${status.revision ? ` at ${status.revision.slice(0, 12)}` : ''}.${where}`;
}
