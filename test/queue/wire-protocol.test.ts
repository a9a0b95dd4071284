// ioredis 6 opens connections with RESP3 by default; Tidemark keeps RESP2 (libs/queue wire-protocol.ts).
// The server is the judge: CLIENT INFO / CLIENT LIST report each connection's `resp`.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { closeRedis, openRedis, openRedisClient, ReconcileWorkers } from '@tidemark/queue';
import { removeKeys, testPrefix } from './helpers';

const redisUrl = inject('redisUrl');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** respOf reads the protocol a connection speaks, as the server reports it. */
async function respOf(client: Redis): Promise<string | undefined> {
  const info = String(await client.call('CLIENT', 'INFO'));
  return /\bresp=(\d)/.exec(info)?.[1];
}

describe('wire protocol', () => {
  it('speaks RESP2 on the clients it opens, their duplicates, and BullMQ\'s worker connections', async () => {
    const client = openRedisClient({ url: redisUrl }) as Redis;
    const worker = openRedis(redisUrl, 'worker') as Redis;
    const subscriber = worker.duplicate();
    cleanups.push(() => { client.disconnect(); worker.disconnect(); subscriber.disconnect(); });
    expect(await Promise.all([client, worker, subscriber].map(respOf))).toEqual(['2', '2', '2']);

    // The control: a client of ioredis 6 left to its defaults speaks RESP3 here.
    const plain = new Redis(redisUrl);
    cleanups.push(() => plain.disconnect());
    expect(await respOf(plain)).toBe('3');

    const prefix = testPrefix();
    const workers = new ReconcileWorkers({ connection: redisUrl, prefix, clusters: ['wire'] });
    cleanups.push(async () => { await workers.close(); await removeKeys(plain, prefix); });
    await workers.start(async () => ({ kind: 'requeue', afterMs: 60_000 }));
    // The worker's blocking connection is BullMQ's own duplicate of ours, named `<prefix>:<base64 queue name>`.
    const mine = async () => String(await plain.call('CLIENT', 'LIST')).split('\n').filter((line) => line.includes(` name=${prefix}:`));
    await expect.poll(async () => (await mine()).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    for (const line of await mine()) expect(line).toMatch(/\bresp=2\b/);
    await closeRedis(worker);
  });
});
