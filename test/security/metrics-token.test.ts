// /metrics can require a bearer token, on the dashboard and on the reconciler.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildDashboard } from '../../apps/dashboard/src/build-app';
import { startHttpServer, type HttpServer } from '../../apps/reconciler/src/http-server';
import { ReconcilerMetrics } from '../../apps/reconciler/src/metrics/reconciler-metrics';
import type { ReconcilerConfig } from '../../apps/reconciler/src/config';
import { startDashboardFixture, type DashboardFixture } from '../dashboard/dashboard-fixture';

const token = 'metrics-token-0123456789abcdef';
let fixture: DashboardFixture;
let dashboard: FastifyInstance;
let subscriber: Redis;
let reconciler: HttpServer;
let redis: Redis;

beforeAll(async () => {
  fixture = await startDashboardFixture(inject('redisUrl'));
  subscriber = fixture.redis.duplicate();
  dashboard = await buildDashboard({
    statusStore: fixture.store, queues: fixture.queues, redis: fixture.redis, subscriber, metricsToken: token,
    auth: { sessionSecret: 'a-test-session-secret-of-32-characters-or-more', tokens: [{ name: 'v', role: 'viewer', token: 'viewer-token-0123456789abcdef' }] },
  });
  await dashboard.ready();
  redis = new Redis(inject('redisUrl'));
  const config = { http: { port: 0, host: '127.0.0.1', metricsToken: token }, webhooks: [] } as unknown as ReconcilerConfig;
  reconciler = await startHttpServer({ config, log: pino({ level: 'silent' }), redis, metrics: new ReconcilerMetrics() });
});
afterAll(async () => {
  await reconciler?.close();
  await dashboard?.close();
  await subscriber?.quit();
  redis?.disconnect();
  await fixture?.stop();
});

describe('/metrics with a token', () => {
  it('the dashboard answers 401 without it, 200 with it', async () => {
    expect((await dashboard.inject({ url: '/metrics' })).statusCode).toBe(401);
    expect((await dashboard.inject({ url: '/metrics', headers: { authorization: 'Bearer wrong-token-0123456789abcdef' } })).statusCode).toBe(401);
    const allowed = await dashboard.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.body).toContain('tidemark_dashboard_request_duration_seconds');
  });

  it('the reconciler answers 401 without it, 200 with it', async () => {
    const url = `http://${reconciler.address}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    const allowed = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('tidemark_');
  });

  it('stays open without a token, as before', async () => {
    expect((await fixture.app.inject({ url: '/metrics' })).statusCode).toBe(200);
  });
});
