// Priority on real Redis: a routine resync waits behind a woken object (a dependency became Ready),
// a Git change, drift or a person, however many resyncs were queued before them; a resync already
// queued goes to the front when its object is woken.
import { describe, expect, inject, it } from 'vitest';
import { ReconcileWorkers } from '@tidemark/queue';
import { jobFor, useQueueFixture, waitFor } from './helpers';

const cluster = 'priority';
let workers: ReconcileWorkers | undefined;
const fixture = useQueueFixture(inject('redisUrl'), [cluster], async () => {
  await workers?.close();
  workers = undefined;
});

describe('priority', () => {
  it('starts woken, changed and manual objects before routine resyncs queued earlier', async () => {
    const resyncs = Array.from({ length: 30 }, (_, index) => jobFor(cluster, `core/ConfigMap/app/resync-${index}`, 1, 'resync'));
    for (const job of resyncs) await fixture.queues.enqueue(job);
    const urgent = [jobFor(cluster, 'core/ConfigMap/app/woken', 1, 'watch'), jobFor(cluster, 'core/ConfigMap/app/changed', 2, 'git-change'), jobFor(cluster, 'core/ConfigMap/app/manual', 1, 'manual')];
    for (const job of urgent) await fixture.queues.enqueue(job);

    const order: string[] = [];
    workers = new ReconcileWorkers({ connection: inject('redisUrl'), prefix: fixture.prefix, clusters: [{ name: cluster, concurrency: 1 }], onError: () => undefined });
    await workers.start(async (job) => {
      order.push(job.objectKey.split('/').pop()!);
      return { kind: 'done' };
    });
    await waitFor(() => order.length === resyncs.length + urgent.length, 20_000, 'every job run');
    expect(order.slice(0, 3).sort()).toEqual(['changed', 'manual', 'woken']);
    expect(order.slice(3)).toEqual(resyncs.map((job) => job.objectKey.split('/').pop()));
  });

  it('takes a resync already queued to the front when its object is woken', async () => {
    const resyncs = Array.from({ length: 30 }, (_, index) => jobFor(cluster, `core/ConfigMap/app/resync-${index}`, 1, 'resync'));
    for (const job of resyncs) await fixture.queues.enqueue(job);
    expect(await fixture.queues.enqueue(jobFor(cluster, 'core/ConfigMap/app/resync-29', 1, 'watch'))).toMatchObject({ jobId: expect.any(String) });

    const order: string[] = [];
    workers = new ReconcileWorkers({ connection: inject('redisUrl'), prefix: fixture.prefix, clusters: [{ name: cluster, concurrency: 1 }], onError: () => undefined });
    await workers.start(async (job) => {
      order.push(job.objectKey.split('/').pop()!);
      return { kind: 'done' };
    });
    await waitFor(() => order.length === resyncs.length, 20_000, 'every job run');
    expect(order[0]).toBe('resync-29');
    expect(order).toHaveLength(30);
  });
});
