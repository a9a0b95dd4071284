import type { NotificationEvent } from '../notification-event';

/**
 * webhookPayload is the generic webhook's JSON body: the event as it is (shaped like a Flux
 * event: involvedObject, severity, reason, message, timestamp), the alert's name and summary.
 */
export function webhookPayload(event: NotificationEvent, alert: { name: string; summary?: string }): Record<string, unknown> {
  return {
    id: event.id,
    reportingController: 'tidemark',
    alert: alert.name,
    ...(alert.summary ? { summary: alert.summary } : {}),
    severity: event.severity,
    reason: event.reason,
    message: event.message,
    involvedObject: event.involvedObject,
    ...(event.source ? { source: event.source } : {}),
    ...(event.cluster ? { cluster: event.cluster } : {}),
    ...(event.revision ? { revision: event.revision } : {}),
    timestamp: event.timestamp,
  };
}
