import type { NotificationEvent } from '../notification-event';
import { factsOf, titleOf } from './event-lines';

/**
 * teamsPayload is an Adaptive Card in the message envelope that Microsoft Teams incoming webhooks
 * and Workflows accept (learn.microsoft.com, "Create an Incoming Webhook", section "Send Adaptive
 * Cards using an Incoming Webhook"): `type: message`, one attachment of content type
 * application/vnd.microsoft.card.adaptive whose content is the card. Version 1.4: the newest
 * that Teams renders everywhere. TextBlocks and FactSet values render Markdown, so every text is
 * escaped (escapeTeams): a message cannot carry a link or formatting of its author's choosing.
 */
export function teamsPayload(event: NotificationEvent, alert: { name: string; summary?: string }): Record<string, unknown> {
  const body: Record<string, unknown>[] = [
    { type: 'TextBlock', text: escapeTeams(titleOf(event)), weight: 'Bolder', size: 'Medium', wrap: true, color: event.severity === 'error' ? 'Attention' : 'Good' },
  ];
  if (alert.summary) body.push({ type: 'TextBlock', text: escapeTeams(alert.summary), weight: 'Bolder', wrap: true });
  body.push({ type: 'TextBlock', text: escapeTeams(event.message), wrap: true });
  body.push({ type: 'FactSet', facts: [...factsOf(event), { title: 'Alert', value: alert.name }].map((fact) => ({ title: escapeTeams(fact.title), value: escapeTeams(fact.value) })) });
  return {
    type: 'message',
    attachments: [{
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: { $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4', body },
    }],
  };
}

/**
 * escapeTeams backslash-escapes what Adaptive Card Markdown reads as markup: emphasis, links,
 * code, and a list or heading marker at the start of a line.
 */
export function escapeTeams(text: string): string {
  return text.replace(/[\\`*_[\]()<>~|!{}]/g, '\\$&').replace(/^(\s*)([-+#>]|\d+\.)/gm, (_match, indent: string, marker: string) => `${indent}${marker.replace(/[-+#>.]/, '\\$&')}`);
}
