import { describe, expect, it } from 'vitest';
import type { RenderedRow } from './object-matrix';
import { summarizeRendered } from './rendered-summary';

const row = (name: string, cells: RenderedRow['cells']): RenderedRow => ({ kind: 'Deployment', namespace: 'shop', name, cells });

describe('summarizeRendered', () => {
  it('counts each rendered object once, and those not Ready or drifted on any cluster', () => {
    const summary = summarizeRendered([
      row('all-ready', { east: { health: 'Ready', drifted: false }, west: { health: 'Ready', drifted: false } }),
      row('failing-on-west', { east: { health: 'Ready', drifted: false }, west: { health: 'Failed', drifted: false } }),
      row('drifted-twice', { east: { health: 'Ready', drifted: true }, west: { health: 'Progressing', drifted: true } }),
    ]);
    expect(summary).toEqual({ objects: 3, notReady: 2, drifted: 1 });
  });

  it('is all zero for a CR that rendered nothing', () => {
    expect(summarizeRendered([])).toEqual({ objects: 0, notReady: 0, drifted: 0 });
  });
});
