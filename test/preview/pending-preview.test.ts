// A rollout's pending revision is previewed by itself (issue 39): when the driver says a revision
// waits for an operator, PendingPreviews queues a preview of that commit on the real preview queue
// and shows it queued; a notice before the queue is open is kept until it is; a revision that has a
// preview already, or a rollout that no longer waits, queues nothing. Real Redis and BullMQ.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { previewQueueName, readPreviewReport, RecordKeys, type PreviewJob, type RolloutRecord } from '@tidemark/contracts';
import { writeRolloutRecord } from '@tidemark/fanout';
import { PreviewQueue } from '@tidemark/queue';
import { createLogger } from '../../apps/reconciler/src/logger';
import { PendingPreviews } from '../../apps/reconciler/src/pending-previews';

const prefix = `pending-preview-${randomUUID().slice(0, 8)}`;
const keys = new RecordKeys(prefix);
const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
const c = 'c'.repeat(40);
let redis: Redis;
let queue: PreviewQueue;
let inspect: Queue<PreviewJob>;

const record = (source: string, revision: string, phase: RolloutRecord['phase']): RolloutRecord => ({
  source, revision, previous: a, phase, paused: false, wave: 0, waves: [{ name: 'sync', clusters: ['shared'] }], batch: [],
  targets: { shared: a }, cells: {}, phaseSince: new Date().toISOString(), startedAt: new Date().toISOString(), updatedAt: new Date().toISOString(),
});
const queuedJobs = async () => (await inspect.getJobs(['waiting', 'delayed', 'prioritized'])).map((job) => `${job.data.source}@${job.data.ref.slice(0, 1)}`).sort();

beforeAll(async () => {
  redis = new Redis(inject('redisUrl'));
  queue = new PreviewQueue({ connection: inject('redisUrl'), prefix });
  await queue.start();
  inspect = new Queue<PreviewJob>(previewQueueName, { connection: { url: inject('redisUrl') }, prefix });
});

afterAll(async () => {
  await queue?.close();
  await inspect?.obliterate({ force: true }).catch(() => undefined);
  await inspect?.close();
  if (redis) {
    const stored = await redis.keys(`${prefix}:*`);
    if (stored.length > 0) await redis.del(...stored);
    redis.disconnect();
  }
});

describe('PendingPreviews', () => {
  it('previews a revision that waits for an operator, also one that started to wait before the queue was open', async () => {
    const previews = new PendingPreviews({ redis, keys, log: createLogger('silent') });
    await writeRolloutRecord(redis, keys, record('apps', b, 'waiting-approval'));
    await writeRolloutRecord(redis, keys, record('web', c, 'complete'));
    previews.notice('apps', 'waiting-approval');
    previews.notice('web', 'waiting-approval');
    previews.notice('apps', 'halted');
    expect(await queuedJobs()).toEqual([]);
    previews.attach({ queue });
    // The rollout of web no longer waits (complete): only the commit apps waits at is previewed.
    await expect.poll(queuedJobs, { timeout: 10_000, interval: 100 }).toEqual(['apps@b']);
    expect(await readPreviewReport(redis, keys, 'apps', b)).toMatchObject({ state: 'queued', ref: b, trigger: 'request' });
    expect(await readPreviewReport(redis, keys, 'web', c)).toBeUndefined();
  });

  it('does not preview the same commit again at the next wave\'s approval', async () => {
    const before = (await readPreviewReport(redis, keys, 'apps', b))!.requestedAt;
    const previews = new PendingPreviews({ redis, keys, log: createLogger('silent') });
    previews.attach({ queue });
    previews.notice('apps', 'waiting-approval');
    await writeRolloutRecord(redis, keys, record('web', c, 'waiting-approval'));
    previews.notice('web', 'waiting-approval');
    await expect.poll(queuedJobs, { timeout: 10_000, interval: 100 }).toEqual(['apps@b', 'web@c']);
    // apps was asked about first: its report is still the first request's.
    expect((await readPreviewReport(redis, keys, 'apps', b))!.requestedAt).toBe(before);
  });
});
