// A stop never waits on a Redis that has gone: a terminal's Ctrl-C reaches redis-server at the same
// moment as the reconciler, whose clients otherwise wait for a reconnect forever
// (maxRetriesPerRequest null, as BullMQ's workers need).
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { endWhenGone, ReconcileQueues, ReconcileWorkers } from '@tidemark/queue';
import { startRedis, type TestRedis } from '@tidemark/testing';

let redis: TestRedis | undefined;
afterEach(async () => {
  await redis?.stop();
  redis = undefined;
});

/** settlesWithin tells whether a promise settles (either way) within ms. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true, () => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
}

describe('endWhenGone', () => {
  it('fails the commands of a client whose Redis has gone at once, where they would wait for it', async () => {
    redis = await startRedis();
    const waiting = new Redis(redis.url, { maxRetriesPerRequest: null });
    const ended = new Redis(redis.url, { maxRetriesPerRequest: null });
    for (const client of [waiting, ended]) client.on('error', () => undefined);
    await Promise.all([waiting.ping(), ended.ping()]);
    await redis.kill();
    await expect.poll(() => [waiting.status, ended.status]).toEqual(['reconnecting', 'reconnecting']);

    endWhenGone(ended);
    const queuedBefore = ended.get('x');
    await expect(ended.get('y')).rejects.toThrow(/Connection is closed/);
    expect(await settlesWithin(queuedBefore, 1_000)).toBe(true);
    expect(ended.status).toBe('end');
    // The control: the same command on a client left alone is still waiting.
    expect(await settlesWithin(waiting.get('x'), 1_500)).toBe(false);
    waiting.disconnect();
  });

  it('ends a client whose Redis goes after the stop began', async () => {
    redis = await startRedis();
    const client = new Redis(redis.url, { maxRetriesPerRequest: null });
    client.on('error', () => undefined);
    await client.ping();
    endWhenGone(client);
    await redis.kill();
    await expect.poll(() => client.status).toBe('end');
    await expect(client.get('x')).rejects.toThrow(/Connection is closed/);
  });

  it('lets ReconcileWorkers close when Redis went first', async () => {
    redis = await startRedis();
    const prefix = `gone-${Date.now()}`;
    const workers = new ReconcileWorkers({ connection: redis.url, prefix, clusters: ['one', 'two'] });
    const queues = new ReconcileQueues({ connection: redis.url, prefix, clusters: ['one', 'two'] });
    let ran = 0;
    await workers.start(async () => { ran += 1; return { status: 'applied' } as never; });
    await queues.start();
    await queues.enqueue({ source: 'sample', revision: 'a'.repeat(40), cluster: 'one', objectKey: 'v1/ConfigMap/demo/settings', reason: 'git-change' });
    await expect.poll(() => ran).toBe(1);
    // The workers wait for the next job on their blocking connections when Redis goes.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await queues.close();
    await redis.kill();
    // A hang check, not a speed claim: without endWhenGone the close waits for a reconnect forever, so
    // any bound far above a normal close (milliseconds) tells the two apart, even on a loaded machine.
    expect(await settlesWithin(workers.close(), 30_000)).toBe(true);
  });
});
