import { describe, expect, it } from 'vitest';
import { markProgressing, markReady, markStalled, setCondition } from '@tidemark/contracts';
import { cellStateOf, isDrifted } from './cell-state';

const input = { reason: 'R', message: 'm' };

describe('cellStateOf', () => {
  it('reads the conditions the pipeline writes', () => {
    expect(cellStateOf({ conditions: markReady([], 1, input) })).toBe('Ready');
    expect(cellStateOf({ conditions: markProgressing([], 1, input) })).toBe('Reconciling');
    expect(cellStateOf({ conditions: markStalled(markReady([], 1, input), 2, input) })).toBe('Stalled');
    expect(cellStateOf({ conditions: setCondition([], { type: 'Ready', status: 'False', observedGeneration: 1, ...input }) })).toBe('Failed');
    expect(cellStateOf({ conditions: [] })).toBe('Unknown');
  });

  it('counts drift items or a Drifted condition as drift', () => {
    expect(isDrifted({ conditions: [], drift: [] })).toBe(false);
    expect(isDrifted({ conditions: [], drift: [{ path: '/a', desired: 1, live: 2, manager: 'm', detectedAt: '' }] })).toBe(true);
    expect(isDrifted({ conditions: setCondition([], { type: 'Drifted', status: 'True', observedGeneration: 1, ...input }) })).toBe(true);
  });
});
