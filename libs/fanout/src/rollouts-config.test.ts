import { describe, expect, it } from 'vitest';
import { rolloutsConfig } from './rollouts-config';

const context = { sources: ['apps', 'platform'], sourceObjects: false, invalid: (field: string, message: string) => new Error(`tidemark.yaml: ${field}: ${message}`) };

describe('rolloutsConfig', () => {
  it('reads one policy per source', () => {
    const policies = rolloutsConfig([{ source: 'apps', waves: [{ name: 'canary', clusterSelector: { matchLabels: { stage: 'canary' } } }, { name: 'prod', maxParallel: '50%' }] }, { source: 'platform', manualSync: true }], context);
    expect(policies.map((policy) => `${policy.source}:${policy.waves.map((wave) => wave.name).join(',')}`)).toEqual(['apps:canary,prod', 'platform:sync']);
    expect(rolloutsConfig(undefined, context)).toEqual([]);
  });

  it.each([
    [[{ source: 'nope', manualSync: true }], 'tidemark.yaml: rollouts[0].source: no source is named "nope"'],
    [[{ source: 'apps', manualSync: true }, { source: 'apps', manualSync: true }], 'tidemark.yaml: rollouts[1].source: source "apps" has a rollout already'],
    [[{ source: 'apps', waves: [{ name: 'canary', soakMs: 'an hour' }] }], 'tidemark.yaml: rollouts[0].waves[0].soakMs: a whole number of ms'],
    [[{ source: 'apps', waves: [{ name: 'canary', maxParallel: '1000%' }] }], 'tidemark.yaml: rollouts[0].waves[0].maxParallel: a count of clusters'],
    [[{ source: 'apps', waves: Array.from({ length: 21 }, (_, index) => ({ name: `w${index}` })) }], 'tidemark.yaml: rollouts[0].waves: at most 20 waves'],
    [['apps'], 'tidemark.yaml: rollouts[0]: must be an object'],
  ])('refuses %j naming the file and field', (input, message) => {
    expect(() => rolloutsConfig(input, context)).toThrow(message);
  });

  it('lets a rollout name a Source object when Source objects are served', () => {
    expect(rolloutsConfig([{ source: 'from-crd', manualSync: true }], { ...context, sourceObjects: true })[0]?.source).toBe('from-crd');
  });
});
