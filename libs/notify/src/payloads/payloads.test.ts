import { describe, expect, it } from 'vitest';
import type { NotificationEvent } from '../notification-event';
import { slackPayload } from './slack-payload';
import { teamsPayload } from './teams-payload';
import { webhookPayload } from './webhook-payload';

const event: NotificationEvent = {
  id: 'e1', reason: 'NotReady', severity: 'error', message: 'WebApp shop/web is not Ready (ApplyFailed): <!channel> & friends',
  involvedObject: { kind: 'WebApp', apiVersion: 'tidemark.dev/v1alpha1', namespace: 'shop', name: 'web', objectKey: 'tidemark.dev/WebApp/shop/web' },
  source: 'apps', cluster: 'prod', revision: '0123456789abcdef0123', timestamp: '2026-12-01T00:00:00.000Z',
};
const alert = { name: 'prod-failures', summary: 'Production, eu-west' };

describe('slackPayload', () => {
  // Shape from api.slack.com/messaging/webhooks (a JSON body with `text`, optionally `blocks`) and
  // the Block Kit reference (header: plain_text ≤ 150; section: text object, mrkdwn ≤ 3000;
  // context: elements of text objects), with &, <, > escaped as "Formatting text" asks.
  it('is an incoming-webhook message: fallback text and header, section and context blocks', () => {
    const payload = slackPayload(event, alert) as { text: string; blocks: { type: string; text?: { type: string; text: string }; elements?: { type: string; text: string }[] }[] };
    expect(Object.keys(payload).sort()).toEqual(['blocks', 'text']);
    expect(payload.blocks.map((block) => block.type)).toEqual(['header', 'section', 'context']);
    const [header, section, context] = payload.blocks;
    expect(header?.text).toEqual({ type: 'plain_text', text: '[error] NotReady: WebApp shop/web', emoji: false });
    expect(section?.text?.type).toBe('mrkdwn');
    expect(section?.text?.text).toBe('*Production, eu-west*\nWebApp shop/web is not Ready (ApplyFailed): &lt;!channel&gt; &amp; friends');
    expect(context?.elements?.[0]?.type).toBe('mrkdwn');
    expect(context?.elements?.[0]?.text).toContain('Cluster: *prod*');
    expect(payload.text).not.toContain('<!channel>');
  });

  it('keeps within the Block Kit limits whatever the message length', () => {
    const long = { ...event, involvedObject: { ...event.involvedObject, name: 'n'.repeat(300) }, message: 'm'.repeat(5000) };
    const payload = slackPayload(long, { name: 'a', summary: 's'.repeat(300) }) as { text: string; blocks: { text?: { text: string } }[] };
    expect(payload.blocks[0]?.text?.text.length).toBeLessThanOrEqual(150);
    expect(payload.blocks[1]?.text?.text.length).toBeLessThanOrEqual(3000);
    expect(payload.text.length).toBeLessThanOrEqual(3000);
  });
});

describe('teamsPayload', () => {
  // Shape from Microsoft's "Create an Incoming Webhook" page, "Send Adaptive Cards using an
  // Incoming Webhook": {type: message, attachments: [{contentType:
  // application/vnd.microsoft.card.adaptive, contentUrl: null, content: <AdaptiveCard>}]}, and the
  // Adaptive Card schema (adaptivecards.io): TextBlock {text, wrap, weight, size, color}, FactSet {facts: [{title, value}]}.
  it('is an Adaptive Card in the message envelope Teams webhooks accept', () => {
    const payload = teamsPayload(event, alert) as { type: string; attachments: { contentType: string; contentUrl: null; content: { $schema: string; type: string; version: string; body: { type: string; text?: string; color?: string; facts?: { title: string; value: string }[] }[] } }[] };
    expect(payload.type).toBe('message');
    expect(payload.attachments).toHaveLength(1);
    const [attachment] = payload.attachments;
    expect(attachment?.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(attachment?.contentUrl).toBeNull();
    expect(attachment?.content).toMatchObject({ $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4' });
    const body = attachment!.content.body;
    expect(body.map((element) => element.type)).toEqual(['TextBlock', 'TextBlock', 'TextBlock', 'FactSet']);
    // Escaped Markdown: Teams shows it as [error] NotReady: WebApp shop/web.
    expect(body[0]).toMatchObject({ text: '\\[error\\] NotReady: WebApp shop/web', color: 'Attention' });
    expect(body[3]?.facts).toEqual(expect.arrayContaining([{ title: 'Cluster', value: 'prod' }, { title: 'Revision', value: '0123456789ab' }, { title: 'Alert', value: 'prod-failures' }]));
  });

  it('escapes Markdown in every text, so a message cannot carry a link or formatting', () => {
    const hostile: NotificationEvent = {
      ...event,
      message: 'failed: [sign in again](https://evil.example/login) **now**\n- step one\n1. step two\n# Heading _x_ `code` <b>',
      involvedObject: { ...event.involvedObject, name: 'web](https://evil.example)' },
    };
    const payload = teamsPayload(hostile, { name: 'a*lert*', summary: '[x](y)' }) as { attachments: { content: { body: { text?: string; facts?: { title: string; value: string }[] }[] } }[] };
    const texts = payload.attachments[0]!.content.body.flatMap((element) => [element.text ?? '', ...(element.facts ?? []).flatMap((fact) => [fact.title, fact.value])]);
    // No unescaped markup character is left: each of them follows a backslash.
    for (const text of texts) expect(text.replace(/\\./g, '')).not.toMatch(/[[\]()*_`<>]|^\s*([-+#]|\d+\.)/m);
    expect(texts).toContain('failed: \\[sign in again\\]\\(https://evil.example/login\\) \\*\\*now\\*\\*\n\\- step one\n1\\. step two\n\\# Heading \\_x\\_ \\`code\\` \\<b\\>');
  });
});

describe('webhookPayload', () => {
  it('is the event as Flux shapes one, with the alert and its summary', () => {
    expect(webhookPayload(event, alert)).toEqual({
      id: 'e1', reportingController: 'tidemark', alert: 'prod-failures', summary: 'Production, eu-west', severity: 'error', reason: 'NotReady',
      message: event.message, involvedObject: event.involvedObject, source: 'apps', cluster: 'prod', revision: event.revision, timestamp: event.timestamp,
    });
  });
});
