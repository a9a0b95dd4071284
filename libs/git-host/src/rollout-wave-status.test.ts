import { describe, expect, it } from 'vitest';
import type { RolloutRecord } from '@tidemark/contracts';
import { waveStatuses } from './rollout-wave-status';

const at = '2026-12-06T14:00:00.000Z';
const record = (changes: Partial<RolloutRecord>): RolloutRecord => ({
  source: 'apps', revision: 'b'.repeat(40), previous: 'a'.repeat(40), phase: 'progressing', paused: false, wave: 0,
  waves: [{ name: 'canary', clusters: ['canary'] }, { name: 'prod', clusters: ['prod-a', 'prod-b'] }, { name: 'lab', clusters: [] }],
  batch: [], targets: {}, cells: {}, phaseSince: at, startedAt: at, updatedAt: at, ...changes,
});
const lines = (changes: Partial<RolloutRecord>) => waveStatuses(record(changes)).map((status) => `${status.state} ${status.description}`);

describe('waveStatuses', () => {
  it('says each wave as the rollout moves: applying, Ready, waiting for soak, waiting for approval, complete', () => {
    expect(lines({ batch: ['canary'], cells: { canary: { wave: 0, state: 'applying' } } })).toEqual([
      'pending canary: applying: 0 of 1 cluster Ready', 'pending prod: waiting for wave canary', 'success lab: no clusters',
    ]);
    expect(lines({ phase: 'soaking', soakUntil: '2026-12-06T14:05:00.000Z', cells: { canary: { wave: 0, state: 'ready' } } })[0]).toBe('pending canary: Ready on 1 cluster, waiting for soak until 14:05:00 UTC');
    expect(lines({ phase: 'waiting-approval', wave: 1 }).slice(0, 2)).toEqual(['success canary: Ready on 1 cluster', "pending prod: waiting for an operator's approval"]);
    expect(lines({ wave: 1, batch: ['prod-a'], cells: { 'prod-a': { wave: 1, state: 'ready' } }, paused: true, lastAction: { action: 'pause', by: 'ops@example', at } })[1]).toBe('pending prod: paused by ops@example; applying: 1 of 2 clusters Ready');
    expect(lines({ phase: 'complete', wave: 2 })).toEqual(['success canary: Ready on 1 cluster', 'success prod: Ready on 2 clusters', 'success lab: no clusters']);
  });

  it('names the cluster, object and reason of a halt, and says the later waves were not reached', () => {
    const halted = lines({ phase: 'halted', halt: { cluster: 'canary', objectKey: 'apps/Deployment/web/web', reason: 'not Ready within 15 s', at } });
    expect(halted.slice(0, 2)).toEqual(['failure canary: halted on canary apps/Deployment/web/web: not Ready within 15 s', 'error prod: not reached: the rollout halted in wave canary']);
  });

  it('says who aborted it and where the clusters return', () => {
    expect(lines({ phase: 'aborted', lastAction: { action: 'abort', by: 'ops@example', at } })[0]).toBe('error canary: aborted by ops@example; its clusters return to aaaaaaa');
  });
});
