import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { KubernetesManifest } from '@tidemark/contracts';
import { parseRolloutPolicy, type RolloutPolicy } from '../rollout-policy';
import { parseRolloutObject } from './parse-rollout-object';
import { effectivePolicy } from './rollout-precedence';
import { rolloutAt } from './rollout-at';
import { rolloutCrd, rolloutCrdHeader } from './rollout-crd';

const rollout = (spec: unknown, name = 'apps'): KubernetesManifest => ({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'Rollout', metadata: { name, namespace: 'team-a' }, spec } as KubernetesManifest);
const git = (spec: unknown) => parseRolloutObject('apps', rollout(spec), 'deploy/rollout.yaml');
const operator: RolloutPolicy = parseRolloutPolicy({
  source: 'apps',
  waves: [
    { name: 'canary', clusterSelector: { matchLabels: { stage: 'canary' } }, gateTimeoutMs: 600_000 },
    { name: 'prod', clusterSelector: { matchLabels: { stage: 'prod' } }, maxParallel: 2, soakMs: 60_000, approval: true },
  ],
}, 'rollouts[0]');

describe('parseRolloutObject', () => {
  it('reads the same fields as a tidemark.yaml rollout, for the source it is in', () => {
    const read = git({ waves: [{ name: 'canary', clusterSelector: { matchLabels: { stage: 'canary' } }, maxParallel: '50%', soakMs: 1000 }, { name: 'rest', approval: true }] });
    expect(read.policy).toEqual({ source: 'apps', waves: [
      { name: 'canary', selector: [{ key: 'stage', operator: 'In', values: ['canary'] }], maxParallel: { percent: 50 }, gateTimeoutMs: 600_000, soakMs: 1000, approval: false },
      { name: 'rest', selector: [], maxParallel: { percent: 100 }, gateTimeoutMs: 600_000, soakMs: 0, approval: true },
    ] });
    expect(git({ manualSync: true }).policy.waves).toEqual([expect.objectContaining({ name: 'sync', approval: true })]);
  });

  it('names the file, the object and the field of bad input, spelled either way', () => {
    const bad = (spec: unknown) => () => git(spec);
    expect(bad({ waves: [{ name: 'canary', maxParallel: '150%' }] })).toThrow(/^deploy\/rollout\.yaml: Rollout team-a\/apps spec\.waves\[0\]\.maxParallel: a count of clusters/);
    expect(bad({ waves: [{ name: 'canary', maxParallel: 0 }] })).toThrow(/^deploy\/rollout\.yaml: Rollout team-a\/apps spec\.waves\[0\]\.maxParallel/);
    expect(bad({ waves: [{ name: 'canary', soakMS: 1000 }] })).toThrow(/^deploy\/rollout\.yaml: Rollout team-a\/apps spec\.waves\[0\]/);
    expect(bad({ waves: [{ name: 'Canary' }] })).toThrow(/spec\.waves\[0\]\.name/);
    expect(bad({ waves: [{ name: 'a' }, { name: 'a' }] })).toThrow(/spec\.waves\[1\]\.name: "a" names two waves/);
    expect(bad({ waves: [{ name: 'a', clusterSelector: { matchExpressions: [{ key: 'stage', operator: 'Near', values: ['x'] }] } }] })).toThrow(/spec\.waves\[0\]\.clusterSelector/);
    expect(bad({ waves: [{ name: 'a' }], manualSync: true })).toThrow(/set manualSync or waves, not both/);
    expect(bad(undefined)).toThrow(/^deploy\/rollout\.yaml: Rollout team-a\/apps spec/);
    expect(bad({ waves: Array.from({ length: 21 }, (_, index) => ({ name: `w${index}` })) })).toThrow(/spec\.waves/);
    expect(bad({ waves: [{ name: 'a', gateTimeoutMs: 10 ** 12 }] })).toThrow(/spec\.waves\[0\]\.gateTimeoutMs/);
  });
});

describe('effectivePolicy: the operator\'s tidemark.yaml caps a tenant\'s Rollout', () => {
  it('takes either alone as written', () => {
    expect(effectivePolicy(operator, undefined)).toBe(operator);
    const alone = git({ waves: [{ name: 'first' }] });
    expect(effectivePolicy(undefined, alone)).toBe(alone.policy);
    expect(effectivePolicy(undefined, undefined)).toBeUndefined();
  });

  it('lets Git add gates and slow down, never drop a wave or an approval or speed one up', () => {
    const merged = effectivePolicy(operator, git({ waves: [
      { name: 'canary', approval: true, soakMs: 120_000, gateTimeoutMs: 900_000, maxParallel: 1 },
      { name: 'prod', approval: false, soakMs: 1_000, maxParallel: 10 },
    ] }))!;
    expect(merged.waves.map((wave) => [wave.name, wave.approval, wave.soakMs, wave.gateTimeoutMs, wave.maxParallel])).toEqual([
      // canary: Git adds an approval and a longer soak; its longer gate timeout does not lift the operator's,
      // and its count is not compared with the operator's percentage.
      ['canary', true, 120_000, 600_000, { percent: 100 }],
      // prod: the operator's approval, soak and maxParallel 2 hold against Git's looser ones.
      ['prod', true, 60_000, 600_000, { count: 2 }],
    ]);
    // A wave Git leaves out stays; a wave Git adds follows the operator's.
    const added = effectivePolicy(operator, git({ waves: [{ name: 'lab', approval: true }] }))!;
    expect(added.waves.map((wave) => wave.name)).toEqual(['canary', 'prod', 'lab']);
    expect(added.waves[1]).toEqual(operator.waves[1]);
  });

  it('takes the smaller maxParallel of the same kind, and keeps the operator\'s across kinds', () => {
    const percent = parseRolloutPolicy({ source: 'apps', waves: [{ name: 'all', maxParallel: '50%' }] }, 'rollouts[0]');
    expect(effectivePolicy(percent, git({ waves: [{ name: 'all', maxParallel: '25%' }] }))!.waves[0]!.maxParallel).toEqual({ percent: 25 });
    expect(effectivePolicy(percent, git({ waves: [{ name: 'all', maxParallel: '75%' }] }))!.waves[0]!.maxParallel).toEqual({ percent: 50 });
    expect(effectivePolicy(percent, git({ waves: [{ name: 'all', maxParallel: 1 }] }))!.waves[0]!.maxParallel).toEqual({ percent: 50 });
  });

  it('puts an approval on the first wave for manualSync, and refuses to move an operator wave\'s clusters', () => {
    const synced = effectivePolicy(operator, git({ manualSync: true }))!;
    expect(synced.waves.map((wave) => [wave.name, wave.approval])).toEqual([['canary', true], ['prod', true]]);
    expect(() => effectivePolicy(operator, git({ waves: [{ name: 'prod', clusterSelector: { matchLabels: { stage: 'canary' } } }] })))
      .toThrow(/^deploy\/rollout\.yaml: Rollout team-a\/apps spec\.waves\[0\]\.clusterSelector: wave prod is the operator's/);
    // The same selector again is no change.
    expect(effectivePolicy(operator, git({ waves: [{ name: 'prod', clusterSelector: { matchLabels: { stage: 'prod' } }, soakMs: 1 }] }))!.waves[1]!.selector).toEqual(operator.waves[1]!.selector);
  });
});

describe('rolloutAt', () => {
  const source = (objects: Record<string, unknown>) => ({
    listObjects: async () => ({ objects: Object.keys(objects).map((objectKey) => ({ objectKey })) }),
    readObject: async (_revision: string, objectKey: string) => ({ object: objects[objectKey] as KubernetesManifest, path: `${objectKey.split('/').pop()}.yaml` }),
  });

  it('reads the one Rollout of a revision, none, or refuses two', async () => {
    expect(await rolloutAt('apps', source({ 'core/ConfigMap/team-a/x': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } }), 'r')).toBeUndefined();
    expect((await rolloutAt('apps', source({ 'tidemark.dev/Rollout/team-a/apps': rollout({ manualSync: true }) }), 'r'))?.where).toBe('apps.yaml: Rollout team-a/apps');
    await expect(rolloutAt('apps', source({ 'tidemark.dev/Rollout/team-a/a': rollout({ manualSync: true }, 'a'), 'tidemark.dev/Rollout/team-a/b': rollout({ manualSync: true }, 'b') }), 'r'))
      .rejects.toThrow(/a\.yaml: Rollout team-a\/a and b\.yaml: Rollout team-a\/b: a source has one Rollout at most/);
  });
});

describe('Rollout CRD', () => {
  it('deploy/crds/rollouts.tidemark.dev.yaml matches the TypeScript (run `npx tsx scripts/generate-crds.ts`)', () => {
    const file = readFileSync(new URL('../../../../deploy/crds/rollouts.tidemark.dev.yaml', import.meta.url), 'utf8');
    expect(file).toBe(rolloutCrdHeader + stringify(rolloutCrd(), { lineWidth: 0 }));
  });

  it('has the wave fields of the parser, maxParallel as int-or-string', () => {
    const crd = rolloutCrd() as unknown as { spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: { waves: { items: { properties: Record<string, Record<string, unknown>> } } } } } } } }[] } };
    const wave = crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties.waves.items.properties;
    expect(Object.keys(wave).sort()).toEqual(['approval', 'clusterSelector', 'gateTimeoutMs', 'maxParallel', 'name', 'soakMs']);
    expect(wave.maxParallel).toMatchObject({ 'x-kubernetes-int-or-string': true });
  });
});
