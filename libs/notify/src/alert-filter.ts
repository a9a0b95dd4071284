import type { NotificationEvent } from './notification-event';
import type { NotificationAlert } from './notify-options';

type Adjudicator = (alert: NotificationAlert, event: NotificationEvent) => string | undefined;

/**
 * The adjudicators, each returning why an alert skips an event (as Pepr's filters do), or
 * undefined when it does not object.
 */
const adjudicators: readonly Adjudicator[] = [
  (alert, event) => alert.severity === 'error' && event.severity !== 'error' ? `severity ${event.severity} is below the alert's error` : undefined,
  (alert, event) => alert.events && !alert.events.includes(event.reason) ? `reason ${event.reason} is not in events` : undefined,
  (alert, event) => unmatched('sources', alert.sources, event.source),
  (alert, event) => unmatched('clusters', alert.clusters, event.cluster),
  (alert, event) => unmatched('kinds', alert.kinds, event.involvedObject.kind),
  (alert, event) => unmatched('namespaces', alert.namespaces, event.involvedObject.namespace),
  (alert, event) => alert.exclusions?.some((pattern) => pattern.test(event.message)) ? 'the message matches an exclusion' : undefined,
];

/** alertSkipReason says why an alert does not send an event, or undefined when it does. */
export function alertSkipReason(alert: NotificationAlert, event: NotificationEvent): string | undefined {
  for (const adjudicate of adjudicators) {
    const reason = adjudicate(alert, event);
    if (reason) return reason;
  }
  return undefined;
}

/** An event without the field (a cluster has no source) passes only a list that holds `*`. */
function unmatched(field: string, patterns: readonly string[] | undefined, value: string | undefined): string | undefined {
  if (!patterns) return undefined;
  if (patterns.some((pattern) => matchesName(pattern, value ?? ''))) return undefined;
  return value === undefined ? `the event has no ${field.replace(/s$/, '')}` : `${value} is not in ${field}`;
}

/** matchesName: `*` matches any run of characters, everything else itself. */
export function matchesName(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  const expression = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${expression}$`).test(value);
}
