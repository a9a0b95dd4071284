// Protection that holds across replicas: two dashboards on one Redis count the same failed
// sign-ins and bearer tokens, and two webhook receivers on one Redis see the same deliveries,
// remembered by a digest of the signed body with the delivery header.
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { RedisDeliveryLog, registerWebhookRoutes } from '@tidemark/poller';
import { startDashboardFixture, viewerToken, type DashboardFixture } from '../dashboard/dashboard-fixture';

let first: DashboardFixture;
let second: DashboardFixture;
let redis: Redis;
const receivers: FastifyInstance[] = [];
const pushes: string[] = [];
const secret = 'webhook-secret-shared-replicas';
const prefix = `shared-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  first = await startDashboardFixture(inject('redisUrl'));
  second = await startDashboardFixture(inject('redisUrl'), { prefix: first.prefix });
  redis = new Redis(inject('redisUrl'));
  for (let replica = 0; replica < 2; replica += 1) {
    const app = Fastify();
    await registerWebhookRoutes(app, {
      hooks: [{ source: 'apps', provider: 'github', secret }],
      onPush: (source) => { pushes.push(source); },
      deliveries: new RedisDeliveryLog({ redis, prefix }),
    });
    await app.ready();
    receivers.push(app);
  }
});
afterAll(async () => {
  await second?.stop();
  await first?.stop();
  for (const app of receivers) await app.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
});

const signIn = (on: DashboardFixture, token: string, remoteAddress: string) => on.app.inject({
  method: 'POST', url: '/login', remoteAddress, payload: `token=${encodeURIComponent(token)}&next=%2F`,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});
const withBearer = (on: DashboardFixture, token: string, remoteAddress: string) => on.app.inject({ url: '/api/session', remoteAddress, headers: { authorization: `Bearer ${token}` } });

function push(replica: number, delivery: string, body: string) {
  return receivers[replica]!.inject({
    method: 'POST', url: '/hooks/apps', payload: body,
    headers: {
      'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': delivery,
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    },
  });
}

describe('throttling across dashboard replicas', () => {
  it('failures split between two replicas add up: the sixth try on either is refused', async () => {
    const statuses = [];
    for (let attempt = 0; attempt < 6; attempt += 1) {
      statuses.push((await signIn(attempt % 2 === 0 ? first : second, `guess-${attempt}-0123456789abcdef`, '10.9.0.1')).statusCode);
    }
    expect(statuses).toEqual([303, 303, 303, 303, 303, 429]);
    expect((await signIn(first, viewerToken, '10.9.0.1')).statusCode).toBe(429);
    expect((await signIn(second, viewerToken, '10.9.0.1')).statusCode).toBe(429);
    expect((await signIn(second, viewerToken, '10.9.0.2')).statusCode).toBe(303);
  });

  it('bearer token failures on one replica lock the address out of the other', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await withBearer(first, `guess-${attempt}-0123456789abcdef`, '10.9.1.1')).statusCode).toBe(401);
    const refused = await withBearer(second, viewerToken, '10.9.1.1');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
    // The counter is a Redis key that ends with its window: nothing is kept for ever.
    const counters = await redis.keys(`${first.prefix}:login-failures:*`);
    expect(counters.length).toBeGreaterThan(0);
    for (const key of counters) expect(await redis.pttl(key)).toBeGreaterThan(0);
  });
});

describe('webhook deliveries across receiver replicas', () => {
  it('a delivery redelivered to the other replica triggers no second poll', async () => {
    pushes.length = 0;
    const body = JSON.stringify({ ref: 'refs/heads/main', after: 'c'.repeat(40) });
    const delivery = randomUUID();
    expect((await push(0, delivery, body)).json()).toMatchObject({ code: 'WebhookPollTriggered' });
    expect((await push(1, delivery, body)).json()).toMatchObject({ code: 'WebhookDuplicate' });
    expect((await push(0, delivery, body)).json()).toMatchObject({ code: 'WebhookDuplicate' });
    expect(pushes).toEqual(['apps']);
  });

  it('is keyed by the signed body too: another signed event under a reused delivery id is not dropped', async () => {
    pushes.length = 0;
    const delivery = randomUUID();
    expect((await push(0, delivery, JSON.stringify({ ref: 'refs/heads/main', after: 'd'.repeat(40) }))).json()).toMatchObject({ code: 'WebhookPollTriggered' });
    expect((await push(1, delivery, JSON.stringify({ ref: 'refs/heads/main', after: 'e'.repeat(40) }))).json()).toMatchObject({ code: 'WebhookPollTriggered' });
    expect(pushes).toEqual(['apps', 'apps']);
    // Remembered for an hour, under the deployment's prefix.
    const remembered = await redis.keys(`${prefix}:webhook-delivery:apps:*`);
    expect(remembered.length).toBeGreaterThanOrEqual(3);
    for (const key of remembered) expect(await redis.pttl(key)).toBeGreaterThan(3_500_000);
  });
});
