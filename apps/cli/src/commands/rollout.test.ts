import { describe, expect, it } from 'vitest';
import type { RolloutRecord } from '@tidemark/contracts';
import { describeRollout } from './rollout';

const a = 'a'.repeat(40);
const b = 'b'.repeat(40);

describe('describeRollout', () => {
  it('says where a halted rollout stopped and why, then each wave\'s clusters with their target', () => {
    const record: RolloutRecord = {
      source: 'apps', revision: b, previous: a, phase: 'halted', paused: false, wave: 0,
      waves: [{ name: 'canary', clusters: ['canary'] }, { name: 'prod', clusters: ['prod-a', 'prod-b'] }], batch: ['canary'],
      targets: { canary: b, 'prod-a': a, 'prod-b': a },
      cells: { canary: { wave: 0, state: 'failed', reachedAt: '2026-12-06T10:00:00.000Z', readyAt: '2026-12-06T10:00:42.000Z' } },
      phaseSince: '2026-12-06T10:05:00.000Z', halt: { cluster: 'canary', objectKey: 'apps/Deployment/shop/web', reason: 'HealthCheckFailed: 0 of 1 available', at: '2026-12-06T10:05:00.000Z' },
      startedAt: '2026-12-06T10:00:00.000Z', updatedAt: '2026-12-06T10:05:00.000Z',
    };
    expect(describeRollout({ colour: false }, record)).toBe([
      'apps  bbbbbbbbbbbb  halted  wave canary  (last good aaaaaaaaaaaa)',
      '  halted: canary apps/Deployment/shop/web: HealthCheckFailed: 0 of 1 available',
      '  WAVE    CLUSTER  TARGET        STATE    TOOK',
      '  canary  canary   bbbbbbbbbbbb  failed   42s',
      '  prod    prod-a   aaaaaaaaaaaa  waiting',
      '  prod    prod-b   aaaaaaaaaaaa  waiting',
      '',
    ].join('\n'));
  });
});
