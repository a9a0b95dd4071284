import { describe, expect, it } from 'vitest';
import { parseRolloutRecord, type RolloutCommandVerb, type RolloutRecord } from '@tidemark/contracts';
import { stepRollout, type GateReport, type RolloutEffect, type RolloutEvent } from './rollout-engine';
import { parseRolloutPolicy } from './rollout-policy';

const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
const c = 'c'.repeat(40);
const clusters = [
  { name: 'canary', labels: { stage: 'canary' } },
  { name: 'staging', labels: { stage: 'staging' } },
  { name: 'prod-a', labels: { stage: 'prod' } },
  { name: 'prod-b', labels: { stage: 'prod' } },
];
const policy = parseRolloutPolicy({
  source: 'apps',
  waves: [
    { name: 'canary', clusterSelector: { matchLabels: { stage: 'canary' } }, gateTimeoutMs: 60_000 },
    { name: 'staging', clusterSelector: { matchLabels: { stage: 'staging' } }, soakMs: 30_000 },
    { name: 'prod', clusterSelector: { matchLabels: { stage: 'prod' } }, maxParallel: 1, approval: true },
  ],
}, 'rollouts[0]');
const t0 = Date.parse('2026-12-06T10:00:00Z');
const at = (seconds: number) => new Date(t0 + seconds * 1000);
const ready = (...batch: string[]): GateReport => ({ clusters: batch, ready: true });
const pending = (...batch: string[]): GateReport => ({ clusters: batch, ready: false, pending: { cluster: batch[0]!, objectKey: 'apps/Deployment/shop/web', reason: 'Reconciling: 0 of 1 replicas available' } });
const failed = (...batch: string[]): GateReport => ({ clusters: batch, ready: false, failed: { cluster: batch[0]!, objectKey: 'apps/Deployment/shop/web', reason: 'Stalled: invalid' } });
const tick = (gate?: GateReport): RolloutEvent => ({ type: 'tick', clusters, ...(gate ? { gate } : {}) });
const command = (verb: RolloutCommandVerb, revision?: string): RolloutEvent => ({ type: 'command', command: { verb, by: 'alice', at: at(0).toISOString(), ...(revision ? { revision } : {}) } });
const reaches = (effects: RolloutEffect[]) => effects.flatMap((effect) => (effect.type === 'reach' ? [`${effect.clusters.join('+')}@${effect.revision[0]}`] : []));
const notices = (effects: RolloutEffect[]) => effects.flatMap((effect) => (effect.type === 'notice' ? [effect.kind] : []));

/** run steps through events at the given seconds and returns the last state and every effect. */
function run(steps: [number, RolloutEvent][], from?: RolloutRecord) {
  let state = from;
  const effects: RolloutEffect[] = [];
  const refusals: string[] = [];
  for (const [second, event] of steps) {
    const step = stepRollout(state, event, at(second), policy);
    state = step.state;
    effects.push(...step.effects);
    if (step.refused) refusals.push(step.refused);
  }
  return { state: state!, effects, refusals };
}

const started = run([[0, { type: 'revision', revision: b, previous: a, clusters }]]);

describe('stepRollout', () => {
  it('starts at the first wave: only canary moves to the new revision, everyone else keeps the last good one', () => {
    expect(started.state).toMatchObject({ revision: b, previous: a, phase: 'progressing', wave: 0, batch: ['canary'] });
    expect(started.state.targets).toEqual({ canary: b, staging: a, 'prod-a': a, 'prod-b': a });
    expect(reaches(started.effects)).toEqual(['canary@b']);
    expect(notices(started.effects)).toEqual(['started']);
  });

  it.each([
    ['a gate still pending holds the wave', [[5, tick(pending('canary'))]], { phase: 'progressing', wave: 0 }, [] as string[]],
    ['a report for another batch is ignored', [[5, tick(ready('staging'))]], { phase: 'progressing', wave: 0 }, []],
    ['a passed gate reaches the next wave in the same step', [[5, tick(ready('canary'))]], { phase: 'progressing', wave: 1, batch: ['staging'] }, ['staging@b']],
    ['a passed wave with a soak waits for it', [[5, tick(ready('canary'))], [6, tick(ready('staging'))]], { phase: 'soaking', wave: 1, soakUntil: at(36).toISOString() }, ['staging@b']],
    ['the soak ends by the clock, and an approval wave waits for an operator', [[5, tick(ready('canary'))], [6, tick(ready('staging'))], [36, tick()]], { phase: 'waiting-approval', wave: 2 }, ['staging@b']],
    ['maxParallel 1 reaches prod one cluster at a time after promote', [[5, tick(ready('canary'))], [6, tick(ready('staging'))], [36, tick()], [40, command('promote')]], { phase: 'progressing', wave: 2, batch: ['prod-a'] }, ['staging@b', 'prod-a@b']],
    ['the last batch passing completes the rollout', [[5, tick(ready('canary'))], [6, tick(ready('staging'))], [36, tick()], [40, command('promote')], [41, tick(ready('prod-a'))], [42, tick(ready('prod-b'))]], { phase: 'complete' }, ['staging@b', 'prod-a@b', 'prod-b@b']],
    ['a failed object halts at once', [[5, tick(failed('canary'))]], { phase: 'halted', halt: { cluster: 'canary', objectKey: 'apps/Deployment/shop/web' } }, []],
    ['a gate past its timeout halts, naming what it waited for', [[61, tick(pending('canary'))]], { phase: 'halted', halt: { cluster: 'canary', objectKey: 'apps/Deployment/shop/web' } }, []],
  ] as [string, [number, RolloutEvent][], Partial<RolloutRecord>, string[]][])('%s', (_name, steps, expected, reached) => {
    const result = run(steps, started.state);
    expect(result.state).toMatchObject(expected);
    expect(reaches(result.effects)).toEqual(reached);
  });

  it('says how long a passed wave took, from its first cluster reached to its gate', () => {
    const { effects } = run([[5, tick(ready('canary'))]], started.state);
    expect(effects.find((effect) => effect.type === 'notice' && effect.kind === 'wave-passed')).toMatchObject({ wave: 'canary', durationMs: 5_000 });
  });

  it('halts with later waves untouched, and says which cluster, object and why', () => {
    const { state, effects } = run([[61, tick(pending('canary'))]], started.state);
    expect(state.targets).toEqual({ canary: b, staging: a, 'prod-a': a, 'prod-b': a });
    expect(state.halt?.reason).toMatch(/^not Ready at bbbbbbbbbbbb within 60 s: Reconciling: 0 of 1 replicas available$/);
    const notice = effects.find((effect) => effect.type === 'notice' && effect.kind === 'halted');
    expect(notice).toMatchObject({ wave: 'canary', message: expect.stringContaining('canary apps/Deployment/shop/web') });
    // Nothing moves while halted, however long.
    expect(reaches(run([[500, tick(ready('canary'))]], state).effects)).toEqual([]);
  });

  it('abort returns every reached cluster to the last good revision', () => {
    const halted = run([[5, tick(ready('canary'))], [70, tick(failed('staging'))]], started.state).state;
    expect(halted.phase).toBe('halted');
    const { state, effects } = run([[80, command('abort')]], halted);
    expect(state).toMatchObject({ phase: 'aborted', lastAction: { action: 'abort', by: 'alice' } });
    expect(state.targets).toEqual({ canary: a, staging: a, 'prod-a': a, 'prod-b': a });
    expect(reaches(effects)).toEqual(['canary+staging@a']);
    expect(state.cells.canary?.state).toBe('returned');
  });

  it('a newer revision supersedes a running rollout: it starts over from canary, reached clusters keep their target until reached again', () => {
    const midway = run([[5, tick(ready('canary'))]], started.state).state;
    const { state, effects } = run([[10, { type: 'revision', revision: c, clusters }]], midway);
    expect(state).toMatchObject({ revision: c, previous: a, wave: 0, batch: ['canary'] });
    expect(state.targets).toEqual({ canary: c, staging: b, 'prod-a': a, 'prod-b': a });
    expect(reaches(effects)).toEqual(['canary@c']);
    // A completed rollout's revision is the next one's last good revision.
    const done = run([[5, tick(ready('canary'))], [6, tick(ready('staging'))], [36, tick()], [40, command('promote')], [41, tick(ready('prod-a'))], [42, tick(ready('prod-b'))]], started.state).state;
    expect(run([[50, { type: 'revision', revision: c, clusters }]], done).state.previous).toBe(b);
  });

  it.each([
    ['pause stops the gate, resume restarts its clock', [[5, command('pause')], [100, tick(pending('canary'))], [101, command('resume')], [150, tick(pending('canary'))]], { phase: 'progressing', paused: false }, []],
    ['promote skips a soak', [[5, tick(ready('canary'))], [6, tick(ready('staging'))], [7, command('promote')]], { phase: 'waiting-approval', wave: 2 }, []],
    ['resume after a halt tries the gate again', [[61, tick(pending('canary'))], [62, command('resume')]], { phase: 'progressing', wave: 0, batch: ['canary'] }, []],
    ['promote is refused while a gate decides', [[5, command('promote')]], { phase: 'progressing' }, ['nothing to promote: the rollout is progressing (its gate decides)']],
    ['a command for a superseded revision is refused', [[5, command('abort', c)]], { phase: 'progressing' }, ['the rollout is at bbbbbbbbbbbb now, not cccccccccccc: a newer revision superseded it']],
    ['abort is refused once complete', [[5, tick(ready('canary'))], [6, tick(ready('staging'))], [7, command('promote')], [8, command('sync')], [9, tick(ready('prod-a'))], [10, tick(ready('prod-b'))], [11, command('abort')]], { phase: 'complete' }, ['a complete rollout cannot be aborted']],
  ] as [string, [number, RolloutEvent][], Partial<RolloutRecord>, string[]][])('%s', (_name, steps, expected, refusals) => {
    const result = run(steps, started.state);
    expect(result.state).toMatchObject(expected);
    expect(result.refusals).toEqual(refusals);
  });

  it('a manual sync is one wave waiting for an operator: the new revision is pending until synced', () => {
    const manual = parseRolloutPolicy({ source: 'apps', manualSync: true }, 'rollouts[1]');
    const first = stepRollout(undefined, { type: 'revision', revision: b, previous: a, clusters }, at(0), manual);
    expect(first.state).toMatchObject({ phase: 'waiting-approval', batch: [] });
    expect(Object.values(first.state!.targets)).toEqual([a, a, a, a]);
    const synced = stepRollout(first.state, command('sync'), at(5), manual);
    expect(reaches(synced.effects)).toEqual(['canary+prod-a+prod-b+staging@b']);
  });

  it('a cluster that joins mid-rollout takes its wave: at once when the wave passed, else in its turn', () => {
    const midway = run([[5, tick(ready('canary'))]], started.state).state;
    const joined = [...clusters, { name: 'canary-2', labels: { stage: 'canary' } }, { name: 'prod-c', labels: { stage: 'prod' } }];
    const step = stepRollout(midway, { type: 'tick', clusters: joined }, at(6), policy);
    expect(step.state?.targets).toMatchObject({ 'canary-2': b, 'prod-c': a });
    expect(reaches(step.effects)).toEqual(['canary-2@b']);
    // One that left is no longer waited for.
    const left = stepRollout(midway, { type: 'tick', clusters: clusters.filter((cluster) => cluster.name !== 'staging') }, at(6), policy);
    expect(left.state).toMatchObject({ phase: 'waiting-approval', wave: 2 });
  });

  it('a first rollout gives clusters it has not reached no revision at all', () => {
    const first = stepRollout(undefined, { type: 'revision', revision: b, clusters }, at(0), policy).state!;
    expect(first.targets).toEqual({ canary: b });
    expect(run([[5, command('abort')]], first).refusals).toEqual(['there is no last good revision to return to (this is the source\'s first rollout)']);
  });

  it('writes a record its parser reads back unchanged', () => {
    const { state } = run([[5, tick(ready('canary'))], [70, tick(failed('staging'))]], started.state);
    expect(parseRolloutRecord('apps', JSON.stringify(state))).toEqual(state);
  });
});

describe('parseRolloutPolicy', () => {
  it.each([
    [{ source: 'apps', waves: [] }, 'rollouts[0].waves: list at least one wave'],
    [{ source: 'apps', waves: [{ name: 'Canary' }] }, 'rollouts[0].waves[0].name'],
    [{ source: 'apps', waves: [{ name: 'a', maxParallel: '150%' }] }, 'rollouts[0].waves[0].maxParallel'],
    [{ source: 'apps', waves: [{ name: 'a', maxParallel: 0 }] }, 'rollouts[0].waves[0].maxParallel'],
    [{ source: 'apps', waves: [{ name: 'a', soakMs: -1 }] }, 'rollouts[0].waves[0].soakMs'],
    [{ source: 'apps', waves: [{ name: 'a', clusterSelector: { matchExpressions: [{ key: 'x', operator: 'Near' }] } }] }, 'rollouts[0].waves[0].clusterSelector'],
    [{ source: 'apps', waves: [{ name: 'a' }, { name: 'a' }] }, 'names two waves'],
    [{ source: 'apps', waves: [{ name: 'a', approve: true }] }, 'rollouts[0].waves[0].approve: unknown field'],
    [{ source: 'apps', manualSync: true, waves: [{ name: 'a' }] }, 'set manualSync or waves, not both'],
    [{ waves: [{ name: 'a' }] }, 'rollouts[0].source'],
  ])('refuses %j naming the field', (input, message) => {
    expect(() => parseRolloutPolicy(input, 'rollouts[0]')).toThrow(message);
  });

  it('reads a percentage as a share of the wave, rounded up', () => {
    expect(parseRolloutPolicy({ source: 'apps', waves: [{ name: 'prod', maxParallel: '50%' }] }, 'r').waves[0]?.maxParallel).toEqual({ percent: 50 });
  });
});

describe('parseRolloutRecord', () => {
  it.each(['not json', '[]', JSON.stringify({ revision: 'HEAD' }), JSON.stringify({ revision: a, phase: 'flying', targets: {}, waves: [], wave: 0 }), JSON.stringify({ revision: a, phase: 'complete', targets: { x: 'main' }, waves: [], wave: 0 })])(
    'refuses an unreadable record %s: jobs wait rather than guess a revision', (raw) => {
      expect(() => parseRolloutRecord('apps', raw)).toThrow(/rollout record of source apps in Redis is unreadable/);
    });
  it('has no rollout without a record', () => {
    expect(parseRolloutRecord('apps', null)).toBeUndefined();
  });
});
