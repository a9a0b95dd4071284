import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '@tidemark/contracts';
import { PlacementRules, type ClusterTarget } from './placement';
import { matches, parseSelector, SelectorError } from './label-selector';
import { PlacementCache, type PlacementSource } from './source-placement';

const clusters: ClusterTarget[] = [
  { name: 'prod-eu', labels: { env: 'prod', region: 'eu' } },
  { name: 'prod-us', labels: { env: 'prod', region: 'us' } },
  { name: 'dev', labels: { env: 'dev' } },
];
const placement = (name: string, rules: unknown[]): KubernetesManifest => ({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'Placement', metadata: { name }, spec: { rules } });
const object = (annotations?: Record<string, string>): KubernetesManifest => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...(annotations ? { annotations } : {}) } });

describe('PlacementRules', () => {
  const rules = PlacementRules.fromObjects([
    placement('b-regional', [{ paths: ['apps/eu/**'], clusterSelector: { matchLabels: { region: 'eu' } } }]),
    placement('a-prod', [
      { paths: ['apps/'], clusterSelector: { matchLabels: { env: 'prod' } } },
      { paths: ['sandbox/*.yaml'], clusterSelector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] } },
    ]),
  ]);

  it('sends an object to the clusters of the first rule whose paths match its file', () => {
    expect(rules.targets(object(), 'apps/shop.yaml', clusters)).toEqual(['prod-eu', 'prod-us']);
    expect(rules.targets(object(), 'apps/eu/shop.yaml', clusters)).toEqual(['prod-eu', 'prod-us']); // a-prod sorts first
    expect(rules.targets(object(), 'sandbox/try.yaml', clusters)).toEqual(['dev']);
  });

  it('sends an object no rule matches everywhere', () => {
    expect(rules.targets(object(), 'base/ns.yaml', clusters)).toEqual(['prod-eu', 'prod-us', 'dev']);
  });

  it('lets the annotation on the object override the rules', () => {
    expect(rules.targets(object({ 'tidemark.dev/cluster-selector': 'region in (us), env=prod' }), 'apps/shop.yaml', clusters)).toEqual(['prod-us']);
    expect(rules.targets(object({ 'tidemark.dev/cluster-selector': 'env!=prod' }), 'apps/shop.yaml', clusters)).toEqual(['dev']);
  });

  it('places by path and cluster-selector alone as it places the object (routing reads only the annotation)', () => {
    expect(rules.targetsFor('apps/shop.yaml', 'region in (us), env=prod', clusters)).toEqual(['prod-us']);
    expect(rules.targetsFor('apps/shop.yaml', undefined, clusters)).toEqual(rules.targets(object({}), 'apps/shop.yaml', clusters));
  });

  it('names the rule of a broken placement', () => {
    expect(() => PlacementRules.fromObjects([placement('bad', [{ paths: [], clusterSelector: {} }])])).toThrow(/Placement bad spec.rules\[0\].paths: list at least one path pattern/);
    expect(() => PlacementRules.fromObjects([placement('bad', [{ paths: ['x'], clusterSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }])])).toThrow(SelectorError);
  });
});

describe('PlacementCache.targetsOf: the one decision routing and desired state ask', () => {
  const inGit: Record<string, KubernetesManifest> = { 'tidemark.dev/Placement/_/prod': placement('prod', [{ paths: ['apps/'], clusterSelector: { matchLabels: { env: 'prod' } }, serviceAccount: { namespace: 'shop', name: 'deployer' } }]) };
  let reads = 0;
  const source: PlacementSource = {
    listObjects: async () => ({ objects: Object.keys(inGit).map((objectKey) => ({ objectKey })) }),
    readObject: async (_revision, objectKey) => { reads += 1; return inGit[objectKey] ? { object: inGit[objectKey] } : undefined; },
  };

  it('places alike whether the selector comes from the index (routing) or the object read (desired state), reading the rules once', async () => {
    const cache = new PlacementCache();
    const annotated = object({ 'tidemark.dev/cluster-selector': 'region=us' });
    expect(await cache.targetsOf('s', source, 'r1', { path: 'apps/shop.yaml' }, clusters)).toEqual(['prod-eu', 'prod-us']);
    expect(await cache.targetsOf('s', source, 'r1', { path: 'apps/shop.yaml', object: annotated }, clusters)).toEqual(['prod-us']);
    expect(await cache.targetsOf('s', source, 'r1', { path: 'apps/shop.yaml', clusterSelector: 'region=us' }, clusters)).toEqual(['prod-us']);
    expect(await cache.identityAt('s', source, 'r1', 'apps/shop.yaml')).toMatchObject({ serviceAccount: { name: 'deployer' } });
    expect(reads).toBe(1);
  });
});

describe('Placement rule variables for render units', () => {
  const rules = PlacementRules.fromObjects([
    placement('web', [{
      paths: ['apps/web/'],
      clusterSelector: { matchLabels: { env: 'prod' } },
      variables: { replicas: '2', tag: '1.26' },
      clusterVariables: [
        { clusterSelector: { matchLabels: { region: 'us' } }, variables: { replicas: '5' } },
        { clusterSelector: { matchExpressions: [{ key: 'region', operator: 'Exists' }] }, variables: { tag: '1.27' } },
      ],
    }]),
  ]);

  it('renders a unit for the clusters its rule selects, each with the rule\'s variables and its matching clusterVariables in order', () => {
    expect(rules.unitTargets('apps/web', clusters)).toEqual([
      { name: 'prod-eu', variables: { replicas: '2', tag: '1.27' } },
      { name: 'prod-us', variables: { replicas: '5', tag: '1.27' } },
    ]);
  });

  it('renders a unit no rule matches for every cluster, with no variables', () => {
    expect(rules.unitTargets('apps/api', clusters).map((target) => [target.name, target.variables])).toEqual([['prod-eu', {}], ['prod-us', {}], ['dev', {}]]);
  });

  it('names the field of a bad variable', () => {
    const bad = (rule: Record<string, unknown>) => () => PlacementRules.fromObjects([placement('bad', [{ paths: ['x/'], ...rule }])]);
    expect(bad({ variables: { replicas: 3 } })).toThrow('Placement bad spec.rules[0].variables.replicas: must be a string (quote numbers, as "3")');
    expect(bad({ variables: { 'no spaces': 'x' } })).toThrow('Placement bad spec.rules[0].variables: "no spaces" is not a variable name');
    expect(bad({ clusterVariables: [{ clusterSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] }, variables: {} }] })).toThrow(/Placement bad spec.rules\[0\].clusterVariables\[0\].clusterSelector: matchExpressions: operator "Near"/);
    expect(bad({ clusterVariables: { region: 'us' } })).toThrow('Placement bad spec.rules[0].clusterVariables: must be a list of {clusterSelector, variables}');
  });
});

describe('Placement rule identity', () => {
  const rules = PlacementRules.fromObjects([
    placement('teams', [
      { paths: ['teams/a/'], serviceAccount: { namespace: 'team-a', name: 'deployer' } },
      { paths: ['teams/'] },
    ]),
  ]);

  it('gives what a rule places (a file, or a unit folder) the ServiceAccount that rule names', () => {
    expect(rules.identityFor('teams/a/web.yaml')).toEqual({ rule: 'Placement teams spec.rules[0]', serviceAccount: { namespace: 'team-a', name: 'deployer' } });
    expect(rules.identityFor('teams/a/app/')).toEqual(expect.objectContaining({ rule: 'Placement teams spec.rules[0]' }));
  });

  it('names no identity where the first matching rule names none, or no rule matches', () => {
    expect(rules.identityFor('teams/b/web.yaml')).toBeUndefined();
    expect(rules.identityFor('base/ns.yaml')).toBeUndefined();
  });

  it('names the field of a bad serviceAccount', () => {
    const bad = (serviceAccount: unknown) => () => PlacementRules.fromObjects([placement('bad', [{ paths: ['x/'], serviceAccount }])]);
    expect(bad('deployer')).toThrow('Placement bad spec.rules[0].serviceAccount: must be a mapping with namespace and name');
    expect(bad({ namespace: 'Team A', name: 'deployer' })).toThrow('Placement bad spec.rules[0].serviceAccount.namespace: must be a namespace name');
    expect(bad({ namespace: 'team-a' })).toThrow('Placement bad spec.rules[0].serviceAccount.name: must be a ServiceAccount name');
    expect(bad({ namespace: 'team-a', name: 'x', user: 'admin' })).toThrow('Placement bad spec.rules[0].serviceAccount: unknown field "user"');
  });
});

describe('label selectors', () => {
  it('reads every term of the string form', () => {
    const requirements = parseSelector('env=prod,tier!=db,region in (eu, us),!legacy,gpu');
    expect(matches(requirements, { env: 'prod', tier: 'web', region: 'us', gpu: 'yes' })).toBe(true);
    expect(matches(requirements, { env: 'prod', tier: 'db', region: 'us', gpu: 'yes' })).toBe(false);
    expect(matches(requirements, { env: 'prod', region: 'us', gpu: 'yes', legacy: 'true' })).toBe(false);
    expect(matches(requirements, { env: 'prod', region: 'ap', gpu: 'yes' })).toBe(false);
    expect(() => parseSelector('env=prod,(oops')).toThrow(/is not a label selector term/);
  });
});
