import { describe, expect, it } from 'vitest';
import type { PreviewReport, RolloutRecord } from '@tidemark/contracts';
import { describeRollout } from './rollout';

const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
const pending: RolloutRecord = {
  source: 'apps', revision: b, previous: a, phase: 'waiting-approval', paused: false, wave: 0,
  waves: [{ name: 'sync', clusters: ['canary'] }], batch: [], targets: { canary: a }, cells: { canary: { wave: 0, state: 'waiting' } },
  phaseSince: '2026-12-06T10:00:00.000Z', startedAt: '2026-12-06T10:00:00.000Z', updatedAt: '2026-12-06T10:00:00.000Z',
};
const preview: PreviewReport = {
  source: 'apps', ref: b, state: 'done', requestedAt: '2026-12-06T10:00:01.000Z', changes: [],
  blastRadius: { clusters: ['canary'], namespaces: ['shop'], kinds: ['ConfigMap'], counts: { created: 1, configured: 2, unchanged: 4, deleted: 0, invalid: 0, skipped: 0 }, flagged: [] },
};

describe('describeRollout of a pending revision', () => {
  it('says which revision waits for a sync, and what its preview says it would do', () => {
    const text = describeRollout({ colour: false }, pending, preview);
    expect(text.split('\n').slice(0, 3)).toEqual([
      'apps  bbbbbbbbbbbb  waiting-approval  wave sync  (last good aaaaaaaaaaaa)',
      '  pending: bbbbbbbbbbbb waits for an operator before wave sync (tidemark rollout sync apps)',
      `  preview: 1 created, 2 configured on canary (tidemark preview ${b} --source apps)`,
    ]);
  });

  it('says when there is no preview yet, and how to make one', () => {
    expect(describeRollout({ colour: false }, pending)).toContain(`  preview: none yet (tidemark preview ${b} --source apps)`);
  });

  it('says what the rollout waits for while a window or freeze holds it', () => {
    const held: RolloutRecord = { ...pending, phase: 'progressing', batch: ['canary'], held: { cluster: 'canary', reason: 'frozen by alice since 2026-12-06T09:00:00.000Z: incident 42', since: '2026-12-06T10:00:05.000Z' } };
    expect(describeRollout({ colour: false }, held)).toContain('  waiting: canary: frozen by alice since 2026-12-06T09:00:00.000Z: incident 42 (since 2026-12-06T10:00:05.000Z; the gate\'s clock stands still)');
  });
});
