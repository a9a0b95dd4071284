import type { NotificationEvent } from '../notification-event';
import type { ProviderType } from '../notify-options';
import { slackPayload } from './slack-payload';
import { teamsPayload } from './teams-payload';
import { webhookPayload } from './webhook-payload';

/** payloadFor builds the JSON body a provider of this type expects. */
export function payloadFor(type: ProviderType, event: NotificationEvent, alert: { name: string; summary?: string }): Record<string, unknown> {
  switch (type) {
    case 'slack': return slackPayload(event, alert);
    case 'teams': return teamsPayload(event, alert);
    case 'webhook': return webhookPayload(event, alert);
  }
}
