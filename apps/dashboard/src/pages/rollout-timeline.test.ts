import { describe, expect, it } from 'vitest';
import type { RolloutRecord } from '@tidemark/contracts';
import { rolloutTimeline, timelineRows } from './rollout-timeline';

const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
const t = (seconds: number) => new Date(Date.parse('2026-12-06T10:00:00Z') + seconds * 1000).toISOString();
const record: RolloutRecord = {
  source: 'apps', revision: b, previous: a, phase: 'progressing', paused: false, wave: 1,
  waves: [{ name: 'canary', clusters: ['canary'] }, { name: 'prod', clusters: ['prod-a', 'prod-b'] }], batch: ['prod-a'],
  targets: { canary: b, 'prod-a': b, 'prod-b': a },
  cells: { canary: { wave: 0, state: 'ready', reachedAt: t(0), readyAt: t(42) }, 'prod-a': { wave: 1, state: 'applying', reachedAt: t(50) }, 'prod-b': { wave: 1, state: 'waiting' } },
  phaseSince: t(50), startedAt: t(0), updatedAt: t(50),
};

describe('rolloutTimeline', () => {
  it('lays waves × clusters on the time since the start: reached, Ready (or now while applying) and how long the gate took', () => {
    expect(timelineRows(record, Date.parse(t(80)))).toEqual([
      { wave: 'canary', cluster: 'canary', revision: b, state: 'ready', from: 0, to: 42_000, tookMs: 42_000 },
      { wave: 'prod', cluster: 'prod-a', revision: b, state: 'applying', from: 50_000, to: 80_000, tookMs: undefined },
      { wave: 'prod', cluster: 'prod-b', revision: a, state: 'waiting', from: undefined, to: undefined, tookMs: undefined },
    ]);
  });

  it('ends a halted cluster\'s bar where it halted', () => {
    const halted: RolloutRecord = { ...record, phase: 'halted', cells: { ...record.cells, 'prod-a': { wave: 1, state: 'failed', reachedAt: t(50) } }, halt: { cluster: 'prod-a', reason: 'Stalled: invalid', at: t(70) } };
    expect(timelineRows(halted, Date.parse(t(500)))[1]).toMatchObject({ state: 'failed', from: 50_000, to: 70_000 });
  });

  it('draws an SVG with a sentence and the same numbers as a table, escaping names', () => {
    const named: RolloutRecord = { ...record, waves: [{ name: 'canary', clusters: ['<b>x</b>'] }], targets: { '<b>x</b>': b }, cells: { '<b>x</b>': { wave: 0, state: 'ready', reachedAt: t(0), readyAt: t(42) } } };
    const svg = rolloutTimeline(named, Date.parse(t(80))).value;
    expect(svg).toContain('<rect class="rollout-bar state-ready" data-cluster="&lt;b&gt;x&lt;/b&gt;"');
    expect(svg).toContain('bbbbbbb ready in 42.0 s');
    expect(svg).toContain('1 of 1 clusters Ready at bbbbbbb over 42.0 s since the rollout started.');
    expect(svg).not.toContain('<b>x</b>');
    expect(rolloutTimeline(record, Date.parse(t(80))).value).toMatch(/<tr data-cluster="prod-a"><td>prod<\/td><td>prod-a<\/td><td><code>bbbbbbbbbb<\/code><\/td><td>applying<\/td><td class="num">50.0 s<\/td><td class="num">—<\/td><\/tr>/);
  });

  it('draws nothing while no cluster has been reached', () => {
    expect(rolloutTimeline({ ...record, cells: { canary: { wave: 0, state: 'waiting' } } }, Date.parse(t(80))).value).toBe('');
  });

  it('says what a held rollout waits for', () => {
    const held: RolloutRecord = { ...record, held: { cluster: 'prod-a', reason: 'deny window "office" until 16:00 Europe/Berlin', since: t(55) } };
    expect(rolloutTimeline(held, Date.parse(t(80))).value).toContain('; waiting: deny window &quot;office&quot; until 16:00 Europe/Berlin.');
  });
});
