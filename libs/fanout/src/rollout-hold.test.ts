import { describe, expect, it } from 'vitest';
import type { RolloutRecord } from '@tidemark/contracts';
import { stepRollout, type GateReport, type RolloutEffect, type RolloutEvent } from './rollout-engine';
import { parseRolloutPolicy } from './rollout-policy';

// A sync window or a freeze holding a gated cluster stops the gate's clock (time injected, never slept).
const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
const clusters = [{ name: 'canary', labels: { stage: 'canary' } }, { name: 'prod', labels: { stage: 'prod' } }];
const policy = parseRolloutPolicy({
  source: 'apps',
  waves: [
    { name: 'canary', clusterSelector: { matchLabels: { stage: 'canary' } }, gateTimeoutMs: 60_000 },
    { name: 'prod', clusterSelector: { matchLabels: { stage: 'prod' } }, gateTimeoutMs: 60_000 },
  ],
}, 'rollouts[0]');
const t0 = Date.parse('2026-12-06T10:00:00Z');
const at = (seconds: number) => new Date(t0 + seconds * 1000);
const window = 'deny window "weekend" until 16:00 Europe/Berlin';
const pending = (cluster: string): GateReport => ({ clusters: [cluster], ready: false, pending: { cluster, objectKey: 'apps/Deployment/shop/web', reason: 'not applied yet' } });
const held = (cluster: string, reason = window): GateReport => ({ ...pending(cluster), held: { cluster, reason } });
const tick = (gate: GateReport): RolloutEvent => ({ type: 'tick', clusters, gate });
const notices = (effects: RolloutEffect[]) => effects.flatMap((effect) => (effect.type === 'notice' ? [effect.kind] : []));

function run(steps: [number, RolloutEvent][]): { state: RolloutRecord; effects: RolloutEffect[] } {
  let state: RolloutRecord | undefined;
  const effects: RolloutEffect[] = [];
  for (const [second, event] of [[0, { type: 'revision', revision: b, previous: a, clusters }] as [number, RolloutEvent], ...steps]) {
    const step = stepRollout(state, event, at(second), policy);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state: state!, effects };
}

describe('a gate held by a sync window or a freeze', () => {
  it('waits past its timeout while held, saying why, instead of halting', () => {
    const { state, effects } = run([[10, tick(held('canary'))], [3_600, tick(held('canary'))], [7_200, tick(held('canary'))]]);
    expect(state).toMatchObject({ phase: 'progressing', wave: 0, batch: ['canary'], held: { cluster: 'canary', reason: window, since: at(10).toISOString() } });
    expect(state.halt).toBeUndefined();
    expect(notices(effects)).toEqual(['started', 'held']);
  });

  it('goes on with the time left when the hold lets go: the time held does not count', () => {
    // 10 s ran before the hold, 2 h held; 49 s after it the gate still waits, at 50 s it times out.
    const released = run([[10, tick(held('canary'))], [7_210, tick(pending('canary'))], [7_259, tick(pending('canary'))]]);
    expect(released.state).toMatchObject({ phase: 'progressing', wave: 0 });
    expect(released.state.held).toBeUndefined();
    const timedOut = run([[10, tick(held('canary'))], [7_210, tick(pending('canary'))], [7_260, tick(pending('canary'))]]);
    expect(timedOut.state).toMatchObject({ phase: 'halted', halt: { cluster: 'canary' } });
  });

  it('passes at once when the objects become Ready after the window, and the next wave starts unheld', () => {
    const { state } = run([[10, tick(held('canary'))], [7_200, tick({ clusters: ['canary'], ready: true })]]);
    expect(state).toMatchObject({ phase: 'progressing', wave: 1, batch: ['prod'] });
    expect(state.held).toBeUndefined();
    expect(state.cells.canary).toMatchObject({ state: 'ready' });
  });

  it('still halts at once on an object that failed for good, held or not', () => {
    const failed: GateReport = { ...held('canary'), failed: { cluster: 'canary', objectKey: 'apps/Deployment/shop/web', reason: 'Stalled: invalid' } };
    const { state } = run([[10, tick(held('canary'))], [20, tick(failed)]]);
    expect(state).toMatchObject({ phase: 'halted', halt: { reason: 'Stalled: invalid' } });
    expect(state.held).toBeUndefined();
  });

  it('keeps the clock stopped from the first hold when a freeze follows the window', () => {
    const frozen = 'frozen by alice since 2026-12-06T11:00:00.000Z: incident 42';
    const { state, effects } = run([[10, tick(held('canary'))], [3_600, tick(held('canary', frozen))], [9_000, tick(held('canary', frozen))]]);
    expect(state.held).toEqual({ cluster: 'canary', reason: frozen, since: at(10).toISOString() });
    expect(notices(effects)).toEqual(['started', 'held']);
  });

  it('does not carry a hold through a pause: resuming restarts the clock once', () => {
    const pause: RolloutEvent = { type: 'command', command: { verb: 'pause', by: 'alice', at: at(0).toISOString() } };
    const resume: RolloutEvent = { type: 'command', command: { verb: 'resume', by: 'alice', at: at(0).toISOString() } };
    const { state } = run([[10, tick(held('canary'))], [20, pause], [21, tick(held('canary'))], [100, resume], [159, tick(pending('canary'))]]);
    expect(state).toMatchObject({ phase: 'progressing', phaseSince: at(100).toISOString() });
    expect(state.held).toBeUndefined();
  });
});
