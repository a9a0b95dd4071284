// TLS to Redis (issue 40, item 4): redis-server with --tls-port and a CA made at test time; the
// reconciler's queues and the dashboard process speak rediss://, a wrong CA, a wrong server name and
// a missing client certificate are refused with an error that says what to check.
import { randomUUID } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectStatus } from '@tidemark/contracts';
import { closeRedis, openRedisClient, openRedisSubscriber, probeRedis, ReconcileQueues, ReconcileWorkers, redisConnectionFor, RedisTlsError, loadRedisTls, type RedisEndpoint } from '@tidemark/queue';
import { StatusStore } from '@tidemark/status-store';
import { buildAppBundles, freePort, killAppProcess, makeTestCa, startAppProcess, startRedis, startRedisCluster, type AppBundles, type AppProcess, type IssuedCertificate, type TestCa, type TestRedis } from '@tidemark/testing';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const password = `pw-${randomUUID()}`;
let ca: TestCa;
let otherCa: TestCa;
let serverCert: IssuedCertificate;
let clientCert: IssuedCertificate;
let optional: TestRedis;
let required: TestRedis;
let bundles: AppBundles;

beforeAll(async () => {
  [ca, otherCa] = await Promise.all([makeTestCa(), makeTestCa('Another CA')]);
  serverCert = await ca.issue('redis', ['127.0.0.1', 'redis.tidemark.test']);
  clientCert = await ca.issue('tidemark', ['tidemark-client']);
  const server = { certFile: serverCert.certFile, keyFile: serverCert.keyFile, caFile: ca.caFile };
  [optional, required, bundles] = await Promise.all([
    startRedis({ url: '', tls: server, args: ['--requirepass', password] }),
    startRedis({ url: '', tls: { ...server, authClients: 'yes' } }),
    buildAppBundles(repoRoot, `test-artifacts/redis-tls-${randomUUID().slice(0, 8)}`),
  ]);
});

afterAll(async () => {
  await Promise.all([optional?.stop(), required?.stop()]);
  await Promise.all([ca?.remove(), otherCa?.remove()]);
});

const withPassword = (redis: TestRedis) => redis.url.replace('rediss://', `rediss://:${password}@`);
const endpoint = (url: string, files: Parameters<typeof loadRedisTls>[0]): RedisEndpoint => ({ url, tls: loadRedisTls(files, (setting) => setting) });

/** refusal is the probe's error, which is what start-up reports. */
async function refusal(target: RedisEndpoint): Promise<Error> {
  const started = Date.now();
  const error = await probeRedis(target, { timeoutMs: 10_000 }).then(() => undefined, (failed: unknown) => failed as Error);
  expect(error, 'the probe refuses').toBeInstanceOf(Error);
  expect(Date.now() - started, `refused at once, not after reconnecting: ${String(error)}`).toBeLessThan(5_000);
  return error!;
}

describe('a single Redis with TLS', () => {
  it('runs the reconciler\'s queue roundtrip over rediss:// (BullMQ\'s duplicated connections too)', async () => {
    const target = endpoint(withPassword(optional), { caFile: ca.caFile });
    const prefix = `tls-${randomUUID().slice(0, 8)}`;
    const connections = [redisConnectionFor(target), redisConnectionFor(target)];
    const queues = new ReconcileQueues({ connection: connections[0]!, prefix, clusters: ['east'] });
    const workers = new ReconcileWorkers({ connection: connections[1]!, prefix, clusters: ['east'], onError: () => undefined });
    const ran: string[] = [];
    try {
      await queues.start();
      await workers.start(async (job) => {
        ran.push(job.objectKey);
        return { kind: 'done' };
      });
      await queues.enqueue({ cluster: 'east', source: 'repo', objectKey: 'v1/ConfigMap/a/one', revision: 'a'.repeat(40), reason: 'git-change' });
      await expect.poll(() => ran, { timeout: 20_000 }).toEqual(['v1/ConfigMap/a/one']);
    } finally {
      await workers.close();
      await queues.close();
    }
  });

  it('the dashboard process reads a status record over rediss:// with a CA file', async () => {
    const prefix = `tls-${randomUUID().slice(0, 8)}`;
    const writer = openRedisClient(endpoint(withPassword(optional), { caFile: ca.caFile }));
    const store = new StatusStore({ redis: writer, prefix });
    await store.put(record('east', 'v1/ConfigMap/a/over-tls'));
    const port = await freePort();
    const token = 'viewer-token-0123456789abcdef';
    const dashboard = startAppProcess({
      name: 'dashboard', bundle: bundles.dashboard, env: {
        TIDEMARK_REDIS_URL: withPassword(optional), TIDEMARK_REDIS_TLS_CA_FILE: ca.caFile, TIDEMARK_REDIS_PREFIX: prefix,
        TIDEMARK_DASHBOARD_HOST: '127.0.0.1', TIDEMARK_DASHBOARD_PORT: String(port), TIDEMARK_DASHBOARD_CLUSTERS: 'east',
        TIDEMARK_DASHBOARD_TOKENS: JSON.stringify([{ name: 'viewer', role: 'viewer', token }]),
      },
    });
    try {
      const objects = () => fetch(`http://127.0.0.1:${port}/api/objects?cluster=east`, { headers: { authorization: `Bearer ${token}` } }).then((response) => (response.ok ? response.text() : ''), () => '');
      await expect.poll(objects, { timeout: 60_000 }).toContain('over-tls');
    } finally {
      await killAppProcess(dashboard);
      await closeRedis(writer);
    }
  });
});

describe('refusals', () => {
  it('a wrong CA: the dashboard stops at start-up, naming the URL (no password), the CA file and what to check', async () => {
    const dashboard: AppProcess = startAppProcess({
      name: 'dashboard', bundle: bundles.dashboard, env: {
        TIDEMARK_REDIS_URL: withPassword(optional), TIDEMARK_REDIS_TLS_CA_FILE: otherCa.caFile,
        TIDEMARK_DASHBOARD_HOST: '127.0.0.1', TIDEMARK_DASHBOARD_PORT: String(await freePort()),
        TIDEMARK_DASHBOARD_TOKENS: JSON.stringify([{ name: 'viewer', role: 'viewer', token: 'viewer-token-0123456789abcdef' }]),
      },
    });
    const exited = await Promise.race([dashboard.exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 30_000))]);
    await killAppProcess(dashboard);
    expect(exited, `the dashboard exits instead of reconnecting forever:\n${dashboard.output}`).toBe(true);
    expect(dashboard.child.exitCode).toBe(1);
    expect(dashboard.output).toContain(`Redis at rediss://127.0.0.1:${optional.port}`);
    expect(dashboard.output).toContain(`not signed by a CA in the CA file ${otherCa.caFile}`);
    expect(dashboard.output).not.toContain(password);
  });

  it('a wrong server name is refused, and the name the certificate carries is accepted', async () => {
    const wrong = await refusal(endpoint(withPassword(optional), { caFile: ca.caFile, serverName: 'elsewhere.tidemark.test' }));
    expect(wrong).toBeInstanceOf(RedisTlsError);
    expect(wrong.message).toMatch(/does not carry the name connected to .*elsewhere\.tidemark\.test.*set the TLS server name/);
    await probeRedis(endpoint(withPassword(optional), { caFile: ca.caFile, serverName: 'redis.tidemark.test' }));
  });

  it('redis:// to a port that serves TLS only says to use rediss://', async () => {
    const plain = withPassword(optional).replace('rediss://', 'redis://');
    const error = await probeRedis({ url: plain }, { timeoutMs: 3_000 }).then(() => undefined, (failed: unknown) => failed as Error);
    expect(error?.message).toMatch(/did not answer within 3000 ms: .*ECONNRESET.*If that port serves TLS only, use rediss:\/\//);
    expect(error?.message).not.toContain(password);
  });

  it('a client certificate required: refused without one, served with one', async () => {
    const without = await refusal(endpoint(required.url, { caFile: ca.caFile }));
    expect(without).toBeInstanceOf(RedisTlsError);
    expect(without.message).toMatch(/requires a client certificate/);
    const withCert = endpoint(required.url, { caFile: ca.caFile, certFile: clientCert.certFile, keyFile: clientCert.keyFile });
    await probeRedis(withCert);
    const client = openRedisClient(withCert);
    try {
      expect(await client.set(`k-${randomUUID()}`, '1')).toBe('OK');
    } finally {
      await closeRedis(client);
    }
  });
});

describe('a Redis Cluster with TLS (3 primaries, TLS on the cluster bus too)', () => {
  it('runs the queue roundtrip, and the dashboard\'s subscriber hears a publish, over TLS to every node; a wrong CA is refused', async () => {
    const cluster = await startRedisCluster({ tls: { certFile: serverCert.certFile, keyFile: serverCert.keyFile, caFile: ca.caFile } });
    const target: RedisEndpoint = { cluster: { nodes: cluster.nodes }, tls: loadRedisTls({ caFile: ca.caFile }, (setting) => setting) };
    const prefix = `tls-${randomUUID().slice(0, 8)}`;
    const connections = [redisConnectionFor(target), redisConnectionFor(target)];
    const queues = new ReconcileQueues({ connection: connections[0]!, prefix, hashTag: true, clusters: ['east', 'west'] });
    const workers = new ReconcileWorkers({ connection: connections[1]!, prefix, hashTag: true, clusters: ['east', 'west'], onError: () => undefined });
    const reader = openRedisClient(target, { lazyConnect: true }) as Cluster;
    const subscriber = openRedisSubscriber(target, { lazyConnect: true }, reader);
    const ran: string[] = [];
    try {
      await probeRedis(target);
      await queues.start();
      await workers.start(async (job) => {
        ran.push(`${job.cluster}:${job.objectKey}`);
        return { kind: 'done' };
      });
      for (const name of ['east', 'west']) await queues.enqueue({ cluster: name, source: 'repo', objectKey: 'v1/ConfigMap/a/one', revision: 'b'.repeat(40), reason: 'git-change' });
      await expect.poll(() => ran.sort(), { timeout: 30_000 }).toEqual(['east:v1/ConfigMap/a/one', 'west:v1/ConfigMap/a/one']);
      await Promise.all([reader.connect(), subscriber.connect()]);
      const heard = new Promise<string>((resolve) => subscriber.once('message', (_channel: string, message: string) => resolve(message)));
      await subscriber.subscribe(`${prefix}:changes`);
      await reader.publish(`${prefix}:changes`, 'over-tls');
      expect(await heard).toBe('over-tls');
      const wrong = await refusal({ ...target, tls: loadRedisTls({ caFile: otherCa.caFile }, (setting) => setting) });
      expect(wrong).toBeInstanceOf(RedisTlsError);
      expect(wrong.message).toMatch(/^Redis at cluster via 127\.0\.0\.1:\d+.*not signed by a CA in the CA file/);
    } finally {
      await workers.close();
      await queues.close();
      await Promise.all([...connections.map((connection) => closeRedis(connection as Cluster)), closeRedis(reader), closeRedis(subscriber)]);
      await cluster.stop();
    }
  });
});

function record(cluster: string, objectKey: string): ObjectStatus {
  return { cluster, objectKey, source: 'repo', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: objectKey.split('/').pop()!, conditions: [], inventory: [], updatedAt: new Date().toISOString() };
}
