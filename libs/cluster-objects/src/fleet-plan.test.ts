import { describe, expect, it } from 'vitest';
import { planFleet, sameLabels, type WantedCluster } from './fleet-plan';

const cluster = (name: string, labels: Record<string, string> = {}, fingerprint = 'a'): WantedCluster => ({ name, labels, fingerprint });
const running = (...clusters: WantedCluster[]) => new Map(clusters.map((entry) => [entry.name, entry]));
const none = new Set<string>();

describe('planFleet', () => {
  it('starts a cluster that is wanted and not running', () => {
    expect(planFleet([cluster('edge', { env: 'prod' })], running(), none)).toEqual({ start: [cluster('edge', { env: 'prod' })], restart: [], relabel: [], stop: [], clashes: [] });
  });

  it('changes nothing when the wanted set equals the running one, labels in any order', () => {
    const plan = planFleet([cluster('edge', { env: 'prod', region: 'eu' })], running(cluster('edge', { region: 'eu', env: 'prod' })), none);
    expect(plan).toEqual({ start: [], restart: [], relabel: [], stop: [], clashes: [] });
  });

  it('relabels without reconnecting when only labels changed', () => {
    const plan = planFleet([cluster('edge', { env: 'staging' })], running(cluster('edge', { env: 'prod' })), none);
    expect(plan.relabel).toEqual([cluster('edge', { env: 'staging' })]);
    expect([plan.start, plan.restart, plan.stop]).toEqual([[], [], []]);
  });

  it('restarts a cluster whose credentials changed, labels changed or not', () => {
    const plan = planFleet([cluster('edge', { env: 'prod' }, 'b'), cluster('lab', { env: 'dev' }, 'c')], running(cluster('edge', { env: 'prod' }), cluster('lab', {}, 'a')), none);
    expect(plan.restart.map((entry) => entry.name)).toEqual(['edge', 'lab']);
    expect(plan.relabel).toEqual([]);
  });

  it('stops a running cluster that is no longer wanted', () => {
    expect(planFleet([], running(cluster('edge')), none).stop).toEqual(['edge']);
  });

  it('never starts a cluster whose name a config-file cluster has, and stops one that starts clashing', () => {
    const plan = planFleet([cluster('east'), cluster('edge')], running(cluster('east')), new Set(['east']));
    expect(plan.clashes).toEqual(['east']);
    expect(plan.start.map((entry) => entry.name)).toEqual(['edge']);
    expect(plan.stop).toEqual(['east']);
  });
});

describe('sameLabels', () => {
  it('tells a missing key from an empty value', () => {
    expect(sameLabels({ a: '' }, {})).toBe(false);
    expect(sameLabels({}, { a: '' })).toBe(false);
    expect(sameLabels({ a: '1', b: '2' }, { b: '2', a: '1' })).toBe(true);
  });
});
