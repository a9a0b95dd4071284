// A preview request shows "queued" at once, and never sets back a report a worker already wrote:
// requestPreview enqueues on the real preview queue, then writes the queued report in one
// compare-and-set script. Before, the dashboard read the report and wrote it in two steps, so a
// worker that finished in between was overwritten with "queued". Real Redis.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { previewQueueName, readPreviewReport, RecordKeys, type PreviewJob } from '@tidemark/contracts';
import { markPreviewQueued, requestPreview, writePreviewReport } from '@tidemark/preview';
import { PreviewQueue } from '@tidemark/queue';

const prefix = `preview-request-${randomUUID().slice(0, 8)}`;
const keys = new RecordKeys(prefix);
let redis: Redis;
let queue: PreviewQueue;
let inspect: Queue<PreviewJob>;

const job = (ref: string, requestedAt: string): PreviewJob => ({ source: 'shop', ref, trigger: 'request', requestedAt });
const at = (second: number) => new Date(Date.UTC(2026, 11, 6, 8, 0, second)).toISOString();

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

describe('requestPreview', () => {
  it('enqueues the preview and shows it as queued; asked again while it waits, it merges and writes nothing', async () => {
    const first = job('blue', at(1));
    expect((await requestPreview(redis, keys, (checked) => queue.enqueue(checked), first)).status).toBe('queued');
    expect(await readPreviewReport(redis, keys, 'shop', 'blue')).toMatchObject({ state: 'queued', requestedAt: at(1), changes: [] });
    expect(await redis.zscore(keys.previews, 'shop/blue')).not.toBeNull();
    expect((await requestPreview(redis, keys, (checked) => queue.enqueue(checked), job('blue', at(2)))).status).toBe('merged');
    expect((await readPreviewReport(redis, keys, 'shop', 'blue'))?.requestedAt).toBe(at(1));
    expect(await inspect.getJobCounts('waiting')).toMatchObject({ waiting: 1 });
  });

  it('leaves the report of a worker that already took this request, or a newer one', async () => {
    await writePreviewReport(redis, keys, { source: 'shop', ref: 'green', state: 'done', trigger: 'request', requestedAt: at(5), changes: [] });
    expect(await markPreviewQueued(redis, keys, job('green', at(5)))).toBe(false);
    expect(await markPreviewQueued(redis, keys, job('green', at(4)))).toBe(false);
    expect((await readPreviewReport(redis, keys, 'shop', 'green'))?.state).toBe('done');
  });

  it('replaces the report of an older request, or a record that is not a report', async () => {
    await writePreviewReport(redis, keys, { source: 'shop', ref: 'red', state: 'done', trigger: 'request', requestedAt: at(5), changes: [] });
    expect(await markPreviewQueued(redis, keys, job('red', at(6)))).toBe(true);
    expect(await readPreviewReport(redis, keys, 'shop', 'red')).toMatchObject({ state: 'queued', requestedAt: at(6) });
    for (const hostile of ['not json', '[1,2]', JSON.stringify({ requestedAt: 9 })]) {
      await redis.set(keys.preview('shop', 'grey'), hostile);
      expect(await readPreviewReport(redis, keys, 'shop', 'grey')).toBeUndefined();
      expect(await markPreviewQueued(redis, keys, job('grey', at(7)))).toBe(true);
      expect((await readPreviewReport(redis, keys, 'shop', 'grey'))?.state).toBe('queued');
    }
  });
});
