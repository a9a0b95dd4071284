// Webhook deliveries are deduplicated by delivery id: a redelivered or replayed push triggers one poll.
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerWebhookRoutes } from '@tidemark/poller';

const secret = 'webhook-secret-for-replays';
const body = JSON.stringify({ ref: 'refs/heads/main', after: 'b'.repeat(40) });
const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
let app: FastifyInstance;
let baseUrl: string;
const pushes: string[] = [];

async function deliver(delivery: string, sign = signature): Promise<{ status: number; code: string }> {
  const response = await fetch(`${baseUrl}/hooks/apps`, {
    method: 'POST', body,
    headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': sign, 'x-github-delivery': delivery },
  });
  return { status: response.status, code: ((await response.json()) as { code: string }).code };
}

beforeAll(async () => {
  app = Fastify();
  await registerWebhookRoutes(app, { hooks: [{ source: 'apps', provider: 'github', secret }], onPush: (source) => { pushes.push(source); } });
  baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => app?.close());

describe('webhook deliveries', () => {
  it('triggers one poll for a delivery sent ten times', async () => {
    const id = randomUUID();
    const answers = [];
    for (let attempt = 0; attempt < 10; attempt += 1) answers.push(await deliver(id));
    expect(answers[0]).toEqual({ status: 202, code: 'WebhookPollTriggered' });
    expect(answers.slice(1).every((answer) => answer.code === 'WebhookDuplicate' && answer.status === 200)).toBe(true);
    expect(pushes).toEqual(['apps']);
  });

  it('a forged delivery does not use up a real delivery\'s id', async () => {
    const id = randomUUID();
    expect((await deliver(id, 'sha256=' + '0'.repeat(64))).status).toBe(401);
    expect(await deliver(id)).toEqual({ status: 202, code: 'WebhookPollTriggered' });
    expect(pushes).toHaveLength(2);
  });
});
