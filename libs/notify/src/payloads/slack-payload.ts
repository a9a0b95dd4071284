import type { NotificationEvent } from '../notification-event';
import { factsOf, titleOf } from './event-lines';

// Limits from Slack's Block Kit reference (api.slack.com/reference/block-kit/blocks): a header's
// plain_text at most 150 characters, a section's text at most 3000.
const headerLimit = 150;
const sectionLimit = 3_000;

/**
 * slackPayload is a Slack incoming-webhook message (api.slack.com/messaging/webhooks): `text` as
 * the notification fallback, and `blocks` (header, section, context) for the message itself.
 * User text is escaped as Slack's formatting guide asks (&, <, >), so a message cannot mention
 * @channel or forge a link.
 */
export function slackPayload(event: NotificationEvent, alert: { name: string; summary?: string }): Record<string, unknown> {
  const title = titleOf(event);
  const body = [alert.summary ? `*${escapeSlack(alert.summary)}*` : '', escapeSlack(event.message)].filter(Boolean).join('\n');
  const context = factsOf(event).map((fact) => `${fact.title}: *${escapeSlack(fact.value)}*`).join('  ·  ');
  return {
    text: escapeSlack(`${title}: ${event.message}`).slice(0, sectionLimit),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: cut(title, headerLimit), emoji: false } },
      { type: 'section', text: { type: 'mrkdwn', text: cut(body, sectionLimit) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: cut(`${context}  ·  alert ${escapeSlack(alert.name)}`, sectionLimit) }] },
    ],
  };
}

/** escapeSlack replaces the three characters Slack reads as markup. */
export function escapeSlack(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
