import { describe, expect, it } from 'vitest';
import type { RolloutRecord } from '@tidemark/contracts';
import { NotificationReason } from './notification-event';
import { rolloutFact } from './rollout-facts';

const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
const progressing: RolloutRecord = {
  source: 'apps', revision: b, previous: a, phase: 'progressing', paused: false, wave: 0,
  waves: [{ name: 'prod', clusters: ['prod-a'] }], batch: ['prod-a'], targets: { 'prod-a': b }, cells: {},
  phaseSince: '2026-12-06T10:00:00.000Z', startedAt: '2026-12-06T10:00:00.000Z', updatedAt: '2026-12-06T10:00:00.000Z',
};
const held: RolloutRecord = { ...progressing, held: { cluster: 'prod-a', reason: 'deny window "office" until 16:00 Europe/Berlin', since: '2026-12-06T10:00:05.000Z' } };

describe('rolloutFact of a rollout a window or freeze holds', () => {
  it('is news once, naming the cluster and the hold', () => {
    const fact = rolloutFact(held);
    expect(fact.eventFor(`${b}:progressing`)).toMatchObject({
      reason: NotificationReason.RolloutWaiting, severity: 'info', cluster: 'prod-a',
      message: 'The rollout of apps at bbbbbbbbbbbb waits in wave prod: prod-a: deny window "office" until 16:00 Europe/Berlin. Its gate\'s clock stands still until writes may go there again.',
    });
    expect(fact.eventFor(fact.state)).toBeUndefined();
  });

  it('is no news when the hold lets go and the gate goes on', () => {
    expect(rolloutFact(progressing).eventFor(`${b}:progressing:held`)).toBeUndefined();
  });
});
