import type { NotificationEvent } from '../notification-event';

/** titleOf is the one-line heading every payload shows: severity, reason and what. */
export function titleOf(event: NotificationEvent): string {
  const what = event.involvedObject;
  const name = what.namespace ? `${what.namespace}/${what.name}` : what.name;
  return `[${event.severity}] ${event.reason}: ${what.kind} ${name}`;
}

/** factsOf lists the names that place an event: source, cluster, revision (short). */
export function factsOf(event: NotificationEvent): { title: string; value: string }[] {
  const facts: { title: string; value: string }[] = [];
  if (event.source) facts.push({ title: 'Source', value: event.source });
  if (event.cluster) facts.push({ title: 'Cluster', value: event.cluster });
  if (event.revision) facts.push({ title: 'Revision', value: event.revision.slice(0, 12) });
  facts.push({ title: 'Time', value: event.timestamp });
  return facts;
}
