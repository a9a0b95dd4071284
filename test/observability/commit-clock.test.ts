// The commit-to-live clock on a real Redis, as replicas share it: the replica that receives the
// webhook, the one that polls and the one that finds the object Ready are different objects on
// one Redis here, as they are different processes in a deployment.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { RecordKeys, type ReconcileJob } from '@tidemark/contracts';
import type { ReconcileObservation } from '@tidemark/pipeline';
import { CommitClock } from '@tidemark/status-store';
import { ReconcilerMetrics } from '../../apps/reconciler/src/metrics/reconciler-metrics';

const redis = new Redis(inject('redisUrl'));
const prefix = `clock-${randomUUID().slice(0, 8)}`;
const keys = new RecordKeys(prefix);
const revision = 'a'.repeat(40);
const job = (objectKey: string, options: Partial<ReconcileJob> = {}): ReconcileJob => ({ source: 's', revision, cluster: 'c1', objectKey, reason: 'git-change', ...options });
const run = (objectKey: string, options: { cluster?: string; revision?: string } = {}) => ({ source: 's', cluster: options.cluster ?? 'c1', objectKey, revision: options.revision ?? revision });
/** replica is one reconciler process's clock: nothing of it is kept outside Redis. */
const replica = () => new CommitClock({ redis, keys });

afterAll(async () => {
  const found = await redis.keys(`${prefix}:*`);
  if (found.length > 0) await redis.del(...found);
  redis.disconnect();
});

describe('CommitClock in Redis', () => {
  it('one replica polls, another finds the object Ready: it is timed from the commit, once across replicas', async () => {
    const poller = replica();
    const [worker, other] = [replica(), replica()];
    await poller.pollStarted('s');
    await poller.changesQueued('s', [job('k1')], new Date(10_000));
    expect(await worker.live(run('k1'), 12_500)).toEqual({ seconds: 2.5, origin: 'commit' });
    // Only once: a later Ready run at the same revision, on any replica, is not the commit going live.
    expect(await other.live(run('k1'), 20_000)).toBeUndefined();
    expect(await poller.live(run('k1'), 20_000)).toBeUndefined();
    expect(await redis.hget(keys.commitClock('s', revision, 'c1'), 'o:k1')).toBe('2.5');
  });

  it('times from the webhook another replica received, and only the poll it triggered takes it', async () => {
    const [receiver, poller, worker] = [replica(), replica(), replica()];
    await receiver.webhookArrived('w', 50_000);
    await poller.pollStarted('w');
    await poller.changesQueued('w', [job('k1', { source: 'w' })], new Date(10_000));
    expect(await worker.live({ ...run('k1'), source: 'w' }, 50_400)).toEqual({ seconds: 0.4, origin: 'webhook' });
    const next = 'b'.repeat(40);
    await poller.pollStarted('w');
    await poller.changesQueued('w', [job('k2', { source: 'w', revision: next })], new Date(10_000));
    expect((await worker.live({ ...run('k2', { revision: next }), source: 'w' }, 11_000))?.origin).toBe('commit');
  });

  it('reads the commit time only when no webhook announced the change', async () => {
    const [receiver, poller, worker] = [replica(), replica(), replica()];
    const reads: string[] = [];
    const commitTime = (source: string) => async () => {
      reads.push(source);
      return new Date(10_000);
    };
    await receiver.webhookArrived('r', 60_000);
    await poller.pollStarted('r');
    await poller.changesQueued('r', [job('k1', { source: 'r' })], commitTime('r'));
    expect(reads).toEqual([]);
    expect(await worker.live({ ...run('k1'), source: 'r' }, 60_250)).toEqual({ seconds: 0.25, origin: 'webhook' });
    await poller.pollStarted('q');
    await poller.changesQueued('q', [job('k2', { source: 'q' })], commitTime('q'));
    expect(reads).toEqual(['q']);
    expect(await worker.live({ ...run('k2'), source: 'q' }, 12_000)).toEqual({ seconds: 2, origin: 'commit' });
  });

  it('ignores resyncs, other revisions and other clusters', async () => {
    const [poller, worker] = [replica(), replica()];
    await poller.changesQueued('s', [job('k3', { reason: 'resync' }), job('k4')], new Date(0));
    expect(await worker.live(run('k3'))).toBeUndefined();
    expect(await worker.live(run('k4', { cluster: 'c2' }))).toBeUndefined();
    expect(await worker.live(run('k4', { revision: 'c'.repeat(40) }))).toBeUndefined();
    expect(await worker.live(run('k4'))).toBeDefined();
  });

  it('a second poll of the revision (a new leader) neither restarts a stopped clock nor moves its start', async () => {
    const [first, second, worker] = [replica(), replica(), replica()];
    const jobs = [job('k5', { source: 'n' }), job('k6', { source: 'n' })];
    await first.changesQueued('n', jobs, new Date(1_000));
    expect(await worker.live({ ...run('k5'), source: 'n' }, 3_000)).toEqual({ seconds: 2, origin: 'commit' });
    await second.changesQueued('n', jobs, new Date(2_000));
    expect(await worker.live({ ...run('k5'), source: 'n' }, 9_000)).toBeUndefined();
    expect(await worker.live({ ...run('k6'), source: 'n' }, 5_000)).toEqual({ seconds: 4, origin: 'commit' });
  });

  it('keeps a push of 2,500 objects (several script calls) and forgets it after its lifetime', async () => {
    const short = new CommitClock({ redis, keys, keepSeconds: 60 });
    const objectKeys = Array.from({ length: 2_500 }, (_, index) => `v1/ConfigMap/ns/c-${index}`);
    await short.changesQueued('big', objectKeys.map((objectKey) => job(objectKey, { source: 'big' })), new Date(0));
    const key = keys.commitClock('big', revision, 'c1');
    expect(await redis.hlen(key)).toBe(2_500 + 2);
    expect(await redis.ttl(key)).toBeGreaterThan(0);
    expect(await redis.ttl(key)).toBeLessThanOrEqual(60);
  });
});

describe('ReconcilerMetrics with the shared clock', () => {
  const observation = (objectKey: string, overrides: Partial<ReconcileObservation> = {}): ReconcileObservation => ({
    cluster: 'c1', source: 'm', objectKey, revision, kind: 'ConfigMap', result: 'ready', stage: 'result', durationMs: 5, becameReady: false, driftReported: 0, driftHealed: 0, ...overrides,
  });
  const count = async (metrics: ReconcilerMetrics) => Number(/^tidemark_commit_to_live_seconds_count\{cluster="c1",origin="commit"\} (\d+)$/m.exec(await metrics.render())?.[1] ?? 0);

  it('the replica that finds the object Ready exports the figure, even when an earlier run already wrote Ready (a replica killed before it stopped the clock)', async () => {
    const pollerClock = replica();
    const [poller, worker] = [new ReconcilerMetrics(pollerClock), new ReconcilerMetrics(replica())];
    await pollerClock.changesQueued('m', [job('k7', { source: 'm' }), job('k8', { source: 'm' })], new Date(Date.now() - 3_000));
    worker.observer.reconciled(observation('k7', { result: 'progressing' }));
    worker.observer.reconciled(observation('k7', { becameReady: true }));
    // The previous record says Ready at this revision already, so becameReady is false: still timed.
    worker.observer.reconciled(observation('k8'));
    await expect.poll(() => count(worker)).toBe(2);
    expect(await count(poller)).toBe(0);
    const clock = await redis.hgetall(keys.commitClock('m', revision, 'c1'));
    expect(Number(clock['o:k7'])).toBeGreaterThan(0);
    expect(Number(clock['o:k8'])).toBeGreaterThan(0);
  });
});
