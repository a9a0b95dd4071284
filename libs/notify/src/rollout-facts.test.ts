import { describe, expect, it } from 'vitest';
import type { RolloutRecord } from '@tidemark/contracts';
import { rolloutFact } from './rollout-facts';

const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
const record = (overrides: Partial<RolloutRecord>): RolloutRecord => ({
  source: 'apps', revision: b, previous: a, phase: 'progressing', paused: false, wave: 0,
  waves: [{ name: 'canary', clusters: ['canary'] }, { name: 'prod', clusters: ['prod'] }], batch: ['canary'],
  targets: { canary: b, prod: a }, cells: {}, phaseSince: '2026-12-06T10:00:00.000Z', startedAt: '2026-12-06T10:00:00.000Z', updatedAt: '2026-12-06T10:00:00.000Z', ...overrides,
});

describe('rolloutFact', () => {
  it('is an error when a rollout halts, naming the cluster, the object and why', () => {
    const halted = rolloutFact(record({ phase: 'halted', halt: { cluster: 'canary', objectKey: 'apps/Deployment/shop/web', reason: 'HealthCheckFailed: 0 of 1 available', at: '2026-12-06T10:05:00.000Z' } }));
    expect(halted.eventFor(`${b}:progressing`)).toMatchObject({
      reason: 'RolloutHalted', severity: 'error', cluster: 'canary', source: 'apps', revision: b,
      message: 'The rollout of apps at bbbbbbbbbbbb halted in wave canary on canary apps/Deployment/shop/web: HealthCheckFailed: 0 of 1 available. Later waves stay at aaaaaaaaaaaa; resume or abort it (tidemark rollout).',
    });
    expect(halted.eventFor(`${b}:halted`)).toBeUndefined();
  });

  it.each([
    ['complete', 'RolloutComplete'], ['aborted', 'RolloutAborted'], ['waiting-approval', 'RolloutWaiting'],
  ] as const)('tells %s as %s, once per revision', (phase, reason) => {
    expect(rolloutFact(record({ phase })).eventFor(undefined)).toMatchObject({ reason, severity: 'info' });
    expect(rolloutFact(record({ phase })).eventFor(`${b}:${phase}`)).toBeUndefined();
    expect(rolloutFact(record({ phase })).eventFor(`${a}:${phase}`)).toMatchObject({ reason });
  });

  it('is no news while a rollout progresses or soaks', () => {
    expect(rolloutFact(record({ phase: 'progressing' })).eventFor(undefined)).toBeUndefined();
    expect(rolloutFact(record({ phase: 'soaking' })).eventFor(undefined)).toBeUndefined();
  });
});
