// The preview queue merges a preview asked again while it waits, but never merges a pull request's
// preview into a waiting one without it: Gitea and GitHub announce a new branch with `push`, then
// the pull request with `pull_request`, for the same commit, and a merged job loses the pull request
// its comment goes to (a CI run of webhook-preview-comment got no comment at all). Real Redis.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'bullmq';
import { previewQueueName, type PreviewJob } from '@tidemark/contracts';
import { PreviewQueue } from '@tidemark/queue';

const prefix = `preview-merge-${randomUUID().slice(0, 8)}`;
const revision = 'a'.repeat(40);
let queue: PreviewQueue;
let inspect: Queue<PreviewJob>;

const job = (pullRequest?: number): PreviewJob => ({
  source: 'shop', ref: 'settings-two', revision, trigger: 'webhook', requestedAt: new Date().toISOString(),
  ...(pullRequest ? { pullRequest: { number: pullRequest, title: 'Settings: two' } } : {}),
});

beforeAll(async () => {
  queue = new PreviewQueue({ connection: inject('redisUrl'), prefix });
  await queue.start();
  inspect = new Queue<PreviewJob>(previewQueueName, { connection: { url: inject('redisUrl') }, prefix });
});

afterAll(async () => {
  await queue?.close();
  await inspect?.obliterate({ force: true }).catch(() => undefined);
  await inspect?.close();
});

describe('the preview queue', () => {
  it('keeps a pull request preview of a commit whose branch preview still waits, and merges repeats of each', async () => {
    expect((await queue.enqueue(job())).status).toBe('queued');
    expect((await queue.enqueue(job(7))).status).toBe('queued');
    expect((await queue.enqueue(job(7))).status).toBe('merged');
    expect((await queue.enqueue(job())).status).toBe('merged');
    const waiting = await inspect.getJobs(['waiting', 'prioritized', 'delayed']);
    expect(waiting.map((queued) => queued.data.pullRequest?.number ?? 'branch').sort()).toEqual([7, 'branch']);
  });
});
