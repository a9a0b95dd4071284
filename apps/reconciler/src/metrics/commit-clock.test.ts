import { describe, expect, it } from 'vitest';
import type { ReconcileJob } from '@tidemark/contracts';
import { CommitClock } from './commit-clock';

const revision = 'a'.repeat(40);
const job = (objectKey: string, reason: ReconcileJob['reason'] = 'git-change'): ReconcileJob => ({ source: 's', revision, cluster: 'c1', objectKey, reason });

describe('CommitClock', () => {
  it('times a changed object from its commit time until it is live', () => {
    const clock = new CommitClock();
    clock.pollStarted('s');
    clock.changesQueued('s', [job('k1')], new Date(10_000));
    expect(clock.live('c1', 'k1', revision, 12_500)).toEqual({ seconds: 2.5, origin: 'commit' });
    // Only once: a later Ready run at the same revision is not the commit going live.
    expect(clock.live('c1', 'k1', revision, 20_000)).toBeUndefined();
  });

  it('times from the webhook that triggered the poll, and only that poll takes it', () => {
    const clock = new CommitClock();
    clock.webhookArrived('s', 50_000);
    clock.pollStarted('s');
    clock.changesQueued('s', [job('k1')], new Date(10_000));
    expect(clock.live('c1', 'k1', revision, 50_400)).toEqual({ seconds: 0.4, origin: 'webhook' });
    clock.pollStarted('s');
    clock.changesQueued('s', [job('k2')], new Date(10_000));
    expect(clock.live('c1', 'k2', revision, 11_000)?.origin).toBe('commit');
  });

  it('ignores resyncs, other revisions and other clusters', () => {
    const clock = new CommitClock();
    clock.changesQueued('s', [job('k1', 'resync'), job('k2')], new Date(0));
    expect(clock.live('c1', 'k1', revision)).toBeUndefined();
    expect(clock.live('c2', 'k2', revision)).toBeUndefined();
    expect(clock.live('c1', 'k2', 'b'.repeat(40))).toBeUndefined();
    expect(clock.live('c1', 'k2', revision)).toBeDefined();
  });

  it('forgets the oldest objects beyond its limit', () => {
    const clock = new CommitClock(2);
    clock.changesQueued('s', [job('k1'), job('k2'), job('k3')], new Date(0));
    expect(clock.live('c1', 'k1', revision)).toBeUndefined();
    expect(clock.live('c1', 'k3', revision)).toBeDefined();
  });
});
