// rolloutTargets' memory of delivered revisions that hold no Rollout, and the admission that uses it.
// Redis, the Git source and the policy reader are in-memory stand-ins: what is checked is which
// reads happen and which revision is admitted, not the records' format (test/security/rollout-target.test.ts).
import { describe, expect, it } from 'vitest';
import { RecordKeys, type RedisClient } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';
import { PlacementCache } from '@tidemark/placement';
import { gitDesiredState } from './desired-state';
import { rolloutTargets, UngovernedRevisions } from './rollout-wiring';

const keys = new RecordKeys('t');
const [one, two, three] = ['1', '2', '3'].map((digit) => digit.repeat(40)) as [string, string, string];

/** A stand-in Redis holding the source's delivered revision and a rollout record; it counts reads. */
function redisStandIn(state: { delivered: string; rollout?: object }) {
  const reads = { status: 0, rollout: 0 };
  const redis = {
    hgetall: async () => { reads.status += 1; return { revision: state.delivered }; },
    get: async () => { reads.rollout += 1; return state.rollout ? JSON.stringify(state.rollout) : null; },
  } as unknown as RedisClient;
  return { redis, reads };
}

/** A stand-in Git source whose gate admits `head` for any revision behind it, and a target as named. */
function sourceStandIn(gate: { head: string }) {
  return { admitRevision: async () => gate.head, admitTarget: async (target: string) => target } as unknown as GitSource;
}

describe('rolloutTargets', () => {
  it('reads the delivered revision once per revision, not once per job, for a source without a Rollout', async () => {
    const state = { delivered: one };
    const { redis, reads } = redisStandIn(state);
    const targetOf = rolloutTargets(redis, keys, [], async () => undefined);
    for (let job = 0; job < 5; job += 1) expect(await targetOf('shop', 'east', { revision: one })).toBeUndefined();
    expect(reads.status).toBe(1);
    // Another revision is another key: read again.
    state.delivered = two;
    expect(await targetOf('shop', 'east', { revision: two })).toBeUndefined();
    expect(reads.status).toBe(2);
  });

  it('never remembers a revision that holds a Rollout: each of its jobs reads the record', async () => {
    const { redis, reads } = redisStandIn({ delivered: one, rollout: { source: 'shop' } });
    const targetOf = rolloutTargets(redis, keys, [], async () => ({ source: 'shop' }) as never);
    await expect(targetOf('shop', 'east', { revision: one })).rejects.toThrow();
    await expect(targetOf('shop', 'east', { revision: one })).rejects.toThrow();
    expect(reads.status).toBe(2);
  });
});

describe('admitting with the memory', () => {
  it('asks Redis again when the gate admits a newer head than the remembered revision, and applies the rollout\'s target', async () => {
    const state: { delivered: string; rollout?: object } = { delivered: one };
    const { redis, reads } = redisStandIn(state);
    // The second revision adds a Rollout; the first holds none.
    const policyAt = async (_source: string, revision: string) => (revision === one ? undefined : ({ source: 'shop' }) as never);
    const gate = { head: one };
    const desired = gitDesiredState(new Map([['shop', sourceStandIn(gate)]]), new PlacementCache(), [{ name: 'east', labels: {} }], new Set(), rolloutTargets(redis, keys, [], policyAt));
    expect(await desired.admitRevision!('shop', one, 'east')).toBe(one);
    expect(await desired.admitRevision!('shop', one, 'east')).toBe(one);
    expect(reads.status).toBe(1);
    // Revision two is delivered with a Rollout that still holds east at revision three's parent... here: at one.
    state.delivered = two;
    state.rollout = { source: 'shop', revision: two, previous: one, phase: 'progressing', paused: false, wave: 0, waves: [{ name: 'all', clusters: ['east'] }], batch: [], targets: { east: one }, cells: {}, phaseSince: new Date().toISOString(), startedAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
    gate.head = two;
    // An old job names revision one: memory says one holds no Rollout, but the gate would apply two, which the rollout holds.
    expect(await desired.admitRevision!('shop', one, 'east')).toBe(one);
    expect(reads.status).toBe(2);
    expect(reads.rollout).toBe(1);
    gate.head = three;
    expect(await desired.admitRevision!('shop', two, 'east')).toBe(one);
  });
});

describe('UngovernedRevisions', () => {
  it('is keyed by source and revision and keeps the newest entries within its bound', () => {
    const memory = new UngovernedRevisions(2);
    memory.add('shop', one);
    memory.add('shop', two);
    expect([memory.has('shop', one), memory.has('shop', two), memory.has('blog', one)]).toEqual([true, true, false]);
    memory.add('shop', three);
    expect([memory.has('shop', one), memory.has('shop', two), memory.has('shop', three)]).toEqual([false, true, true]);
  });
});
