import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ClusterConnection, kubeUserAgent } from '@tidemark/cluster';
import { startHealthMonitor } from '@tidemark/cluster-health';
import { readClusterHealth } from '@tidemark/contracts';
import { StatusStore } from '@tidemark/status-store';
import { readAuditLog, startControlPlane, startRedis, type ControlPlane, type TestRedis } from '@tidemark/testing';

// A real API server (with its audit log) and Redis. The queue switch is the one stand-in: an object
// that records pause and resume, since the monitor only calls it.
describe('health probes of a quiet cluster', () => {
  let plane: ControlPlane;
  let redisServer: TestRedis;
  let redis: Redis;

  beforeAll(async () => {
    [plane, redisServer] = await Promise.all([startControlPlane({ name: `quiet-${randomUUID().slice(0, 6)}`, auditLog: true }), startRedis()]);
    redis = new Redis(redisServer.url);
  }, 180_000);

  afterAll(async () => {
    redis?.disconnect();
    await redisServer?.stop();
    await plane?.stop();
  });

  it('probes a cluster whose requests succeed once per quiet interval, and every check once one failed', async () => {
    const connection = ClusterConnection.connect({ cluster: 'quiet', kubeconfig: plane.kubeconfig });
    const statusStore = new StatusStore({ redis, prefix: `quiet-${randomUUID().slice(0, 6)}` });
    const paused: string[] = [];
    const queues = { pause: async (cluster: string) => { paused.push(cluster); }, resume: async () => undefined };
    const monitor = startHealthMonitor({ clusters: new Map([['quiet', connection]]), queues, statusStore, redis, onRecovered: async () => undefined, intervalMs: 3_600_000, quietIntervalMs: 3_600_000, failureThreshold: 2 });
    try {
      for (let check = 0; check < 5; check += 1) await monitor.checkNow();
      const probes = (await readAuditLog(plane.auditLogPath!, 0, kubeUserAgent)).filter((request) => request.requestURI === '/readyz');
      expect(probes).toHaveLength(1);
      expect((await readClusterHealth(redis, statusStore.keys, 'quiet')).state).toBe('Available');

      await plane.stop();
      // A request of the cluster that fails brings the probes back at once.
      await expect(connection.client.request({ method: 'GET', path: '/api', what: 'a read' })).rejects.toThrow();
      await monitor.checkNow();
      await monitor.checkNow();
      expect((await readClusterHealth(redis, statusStore.keys, 'quiet')).state).toBe('Unavailable');
      expect(paused).toEqual(['quiet']);
    } finally {
      await monitor.stop();
      connection.client.close();
    }
  }, 120_000);
});
