// The status tally on the rig's Redis: the metrics' counts of records by Ready and their drift
// items agree with a read of every record, follow the records as they change, and a scrape with
// nothing changed reads no record (INFO commandstats counts the commands Redis served).
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { redisSchemaVersion, verdictOf, type ObjectStatus } from '@tidemark/contracts';
import { writeClusterHealth } from '@tidemark/cluster-health';
import { StatusStore, StatusTally, type ClusterCounts } from '@tidemark/status-store';
import { ReconcilerMetrics } from '../../apps/reconciler/src/metrics/reconciler-metrics';

const redis = new Redis(inject('redisUrl'));
const prefix = `tally-${randomUUID().slice(0, 8)}`;
const store = new StatusStore({ redis, prefix });
const tallies: StatusTally[] = [];
afterAll(async () => {
  await Promise.all(tallies.map((tally) => tally.stop()));
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

function newTally(options: { recountMs?: number; pendingLimit?: number } = {}): StatusTally {
  const tally = new StatusTally({ redis, keys: store.keys, ...options });
  tallies.push(tally);
  return tally;
}

const at = '2026-12-07T02:00:00.000Z';
type Shape = 'ready' | 'failed' | 'stalled' | 'drifted';
function record(cluster: string, index: number, shape: Shape): ObjectStatus {
  const ready = shape === 'ready' || shape === 'drifted';
  return {
    cluster, objectKey: `core/ConfigMap/shop/cm-${index}`, source: 'main', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: `cm-${index}`,
    conditions: [
      { type: 'Ready', status: ready ? 'True' : 'False', observedGeneration: 1, reason: ready ? 'Succeeded' : 'ApplyFailed', message: 'm', lastTransitionTime: at },
      ...(shape === 'stalled' ? [{ type: 'Stalled', status: 'True' as const, observedGeneration: 1, reason: 'InvalidManifest', message: 'm', lastTransitionTime: at }] : []),
    ],
    inventory: [], updatedAt: at,
    ...(shape === 'drifted' ? { drift: [1, 2, 3].map((n) => ({ path: `/data/k${n}`, desired: 'a', live: 'b', manager: 'kubectl', detectedAt: at })) } : {}),
  };
}

/** expected counts a cluster's records as the gauges did before the tally: every record read and judged. */
async function expected(cluster: string): Promise<ClusterCounts> {
  const records = await store.list(cluster);
  const ready = records.filter((status) => verdictOf(status).state === 'Ready').length;
  return { ready, notReady: records.length - ready, drift: records.reduce((sum, status) => sum + (status.drift?.length ?? 0), 0) };
}

/** commandCalls reads how many of each command Redis has served (INFO commandstats). */
async function commandCalls(): Promise<Record<string, number>> {
  const calls: Record<string, number> = {};
  for (const match of (await redis.info('commandstats')).matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) calls[match[1]!] = Number(match[2]);
  return calls;
}

/** recordReads: the commands that read status records (one HSCAN batch, or named fields). */
function recordReads(before: Record<string, number>, after: Record<string, number>): { hscan: number; hmget: number; hvals: number; hgetall: number } {
  const delta = (command: string) => (after[command] ?? 0) - (before[command] ?? 0);
  return { hscan: delta('hscan'), hmget: delta('hmget'), hvals: delta('hvals'), hgetall: delta('hgetall') };
}

const shapes: Shape[] = ['ready', 'ready', 'ready', 'failed', 'drifted', 'stalled'];

describe('StatusTally', () => {
  it('counts as a read of every record does, and follows writes, deletes and unreadable values', async () => {
    const tally = newTally();
    for (let index = 0; index < 60; index += 1) await store.put(record('east', index, shapes[index % shapes.length]!));
    await redis.hset(store.keys.objectStatus('east'), 'core/ConfigMap/shop/by-hand', '{not a record');
    expect((await tally.counts(['east'])).get('east')).toEqual(await expected('east'));
    expect(await expected('east')).toEqual({ ready: 40, notReady: 20, drift: 30 });

    await store.put(record('east', 3, 'ready')); // failed → ready
    await store.put(record('east', 0, 'drifted')); // ready → drifted
    await store.put(record('east', 100, 'failed')); // new
    await store.delete('east', record('east', 5, 'stalled').objectKey);
    await store.put(record('east', 7, 'stalled')); // ready → stalled
    await redis.hset(store.keys.objectStatus('east'), 'core/ConfigMap/shop/by-hand-2', '[]');
    await redis.publish(store.channel, JSON.stringify({ cluster: 'east', objectKey: 'core/ConfigMap/shop/by-hand-2', kind: 'updated' }));
    const now = await expected('east');
    expect(now).toEqual({ ready: 40, notReady: 20, drift: 33 });
    // The announcements reach the tally's subscriber soon after the writes: counted again until they have.
    await expect.poll(async () => (await tally.counts(['east'])).get('east'), { timeout: 20_000 }).toEqual(now);
    // A tally that reads every record afresh agrees.
    expect((await newTally().counts(['east'])).get('east')).toEqual(now);
  });

  it('counts no record Ready while its cluster is Unavailable, as readers see them', async () => {
    const tally = newTally();
    for (let index = 0; index < 6; index += 1) await store.put(record('west', index, shapes[index]!));
    expect((await tally.counts(['west'])).get('west')).toEqual({ ready: 4, notReady: 2, drift: 3 });
    await writeClusterHealth(redis, store.keys, { cluster: 'west', state: 'Unavailable', since: at, lastCheck: at, queuePaused: true });
    expect((await tally.counts(['west'])).get('west')).toEqual({ ...(await expected('west')), ready: 0, notReady: 6 });
    expect(await expected('west')).toEqual({ ready: 0, notReady: 6, drift: 3 });
    await writeClusterHealth(redis, store.keys, { cluster: 'west', state: 'Available', since: at, lastCheck: at, queuePaused: false });
    expect((await tally.counts(['west'])).get('west')).toEqual({ ready: 4, notReady: 2, drift: 3 });
  });

  it('reads no record on a scrape when nothing changed, and only the changed ones when some did', async () => {
    const records = 3_000;
    const writes = redis.pipeline();
    for (let index = 0; index < records; index += 1) {
      const status = record('big', index, shapes[index % shapes.length]!);
      writes.hset(store.keys.objectStatus('big'), status.objectKey, JSON.stringify({ ...status, schemaVersion: redisSchemaVersion }));
    }
    await writes.exec();
    const metrics = new ReconcilerMetrics();
    const tally = newTally();
    metrics.start({ clusters: ['big'], sourceCacheDir: () => '/nonexistent', queues: { figures: async () => [] }, statusCounts: tally });
    const first = await metrics.render();
    expect(first).toContain(`tidemark_objects{cluster="big",ready="true"} ${records * 4 / 6}`);
    expect(first).toContain(`tidemark_drift_items{cluster="big"} ${(records / 6) * 3}`);

    const before = await commandCalls();
    for (let scrape = 0; scrape < 5; scrape += 1) await metrics.render();
    expect(recordReads(before, await commandCalls())).toEqual({ hscan: 0, hmget: 0, hvals: 0, hgetall: 0 });

    for (const index of [0, 1, 2]) await store.put(record('big', index, 'failed'));
    const changed = await commandCalls();
    // Until the announcements arrive a scrape may read nothing; once they have, it reads those three in one HMGET.
    await expect.poll(async () => metrics.render(), { timeout: 20_000 }).toContain(`tidemark_objects{cluster="big",ready="false"} ${records * 2 / 6 + 3}`);
    const reads = recordReads(changed, await commandCalls());
    expect(reads).toMatchObject({ hscan: 0, hvals: 0, hgetall: 0 });
    expect(reads.hmget).toBeGreaterThanOrEqual(1);
  });

  it('reads a cluster whole again after recountMs, and when more changes wait than pendingLimit', async () => {
    for (let index = 0; index < 12; index += 1) await store.put(record('north', index, 'ready'));
    const recounting = newTally({ recountMs: 0 });
    const before = await commandCalls();
    await recounting.counts(['north']);
    await recounting.counts(['north']);
    expect(recordReads(before, await commandCalls()).hscan).toBe(2);

    const limited = newTally({ pendingLimit: 2 });
    const beforeLimited = await commandCalls();
    expect((await limited.counts(['north'])).get('north')).toEqual({ ready: 12, notReady: 0, drift: 0 });
    for (let index = 0; index < 4; index += 1) await store.put(record('north', index, 'failed'));
    await expect.poll(async () => (await limited.counts(['north'])).get('north'), { timeout: 20_000 }).toEqual({ ready: 8, notReady: 4, drift: 0 });
    // The first count, and one more once the third change passed the limit.
    expect(recordReads(beforeLimited, await commandCalls()).hscan).toBe(2);
  });
});
