import { describe, expect, it } from 'vitest';
import type { KubernetesManifest } from '@tidemark/contracts';
import { buildRevisionOrdering, type OrderedObject } from './revision-ordering';
import { findCycles } from './find-cycles';

function entry(objectKey: string, object: Partial<KubernetesManifest> & { metadata: KubernetesManifest['metadata'] }): OrderedObject {
  return { objectKey, path: 'all.yaml', specHash: `hash-${objectKey}`, object: { apiVersion: 'v1', kind: 'ConfigMap', ...object } };
}

const namespace = entry('core/Namespace/_/flux-system', { kind: 'Namespace', metadata: { name: 'flux-system' } });
const crd = entry('apiextensions.k8s.io/CustomResourceDefinition/_/gitrepositories.source.toolkit.fluxcd.io', {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gitrepositories.source.toolkit.fluxcd.io' },
  spec: { group: 'source.toolkit.fluxcd.io', names: { kind: 'GitRepository', plural: 'gitrepositories' } },
});
const repository = entry('source.toolkit.fluxcd.io/GitRepository/flux-system/podinfo', { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: { name: 'podinfo', namespace: 'flux-system' } });

describe('buildRevisionOrdering', () => {
  it('orders a CRD before its custom resources and a Namespace before what is in it', () => {
    const ordering = buildRevisionOrdering('flux', [repository, crd, namespace]);
    expect(ordering.nodes.get(repository.objectKey)!.dependencies.map((dependency) => [dependency.reason, dependency.objectKey, dependency.specHash]))
      .toEqual([['crd', crd.objectKey, crd.specHash], ['namespace', namespace.objectKey, namespace.specHash]]);
    expect(ordering.nodes.get(crd.objectKey)!.dependencies).toEqual([]);
    expect(ordering.cycles).toEqual([]);
  });

  it('makes each wave wait for the nearest lower wave only', () => {
    const wave = (name: string, value: string) => entry(`core/ConfigMap/app/${name}`, { metadata: { name, namespace: 'app', annotations: { 'tidemark.dev/sync-wave': value } } });
    const ordering = buildRevisionOrdering('apps', [wave('first', '-1'), wave('second', '0'), wave('third', '5'), wave('fourth', '5')]);
    const waits = (name: string) => ordering.nodes.get(`core/ConfigMap/app/${name}`)!.dependencies.map((dependency) => `${dependency.reason}:${dependency.objectKey}:${dependency.wave}`);
    expect(waits('first')).toEqual([]);
    expect(waits('second')).toEqual(['sync-wave:core/ConfigMap/app/first:-1']);
    expect(waits('third')).toEqual(['sync-wave:core/ConfigMap/app/second:0']);
    expect(waits('fourth')).toEqual(['sync-wave:core/ConfigMap/app/second:0']);
  });

  it('reports a depends-on cycle on every member, and keeps dependencies outside the revision without a spec', () => {
    const on = (name: string, dependsOn: string) => entry(`core/ConfigMap/app/${name}`, { metadata: { name, namespace: 'app', annotations: { 'tidemark.dev/depends-on': dependsOn } } });
    const ordering = buildRevisionOrdering('apps', [on('a', 'v1/ConfigMap/app/b'), on('b', 'v1/ConfigMap/app/c'), on('c', 'v1/ConfigMap/app/a, apps/v1/Deployment/db/postgres'), on('d', 'v1/ConfigMap/app/a')]);
    const cycle = ['core/ConfigMap/app/a', 'core/ConfigMap/app/b', 'core/ConfigMap/app/c'];
    expect(ordering.cycles).toEqual([cycle]);
    for (const key of cycle) expect(ordering.nodes.get(key)!.cycle).toEqual(cycle);
    expect(ordering.nodes.get('core/ConfigMap/app/d')!.cycle).toBeUndefined();
    const outside = ordering.nodes.get('core/ConfigMap/app/c')!.dependencies.find((dependency) => dependency.objectKey === 'apps/Deployment/db/postgres');
    expect(outside).toEqual({ objectKey: 'apps/Deployment/db/postgres', description: 'Deployment db/postgres', reason: 'depends-on' });
  });

  it('keeps Namespaces and CRDs out of the waves, so a negative wave inside a Namespace is no cycle', () => {
    const late = { ...crd, object: { ...crd.object, metadata: { ...crd.object.metadata, annotations: { 'tidemark.dev/sync-wave': '1' } } } };
    const early = { ...repository, object: { ...repository.object, metadata: { ...repository.object.metadata, annotations: { 'tidemark.dev/sync-wave': '-1' } } } };
    const ordering = buildRevisionOrdering('flux', [late, early, namespace]);
    expect(ordering.cycles).toEqual([]);
    expect(ordering.nodes.get(namespace.objectKey)!.dependencies).toEqual([]);
    expect(ordering.nodes.get(crd.objectKey)!.dependencies).toEqual([]);
    expect(ordering.nodes.get(early.objectKey)!.dependencies.map((dependency) => dependency.reason)).toEqual(['crd', 'namespace']);
  });

  it('finds the cycle a depends-on against the implicit order makes', () => {
    const needy = { ...namespace, object: { ...namespace.object, metadata: { ...namespace.object.metadata, annotations: { 'tidemark.dev/depends-on': 'source.toolkit.fluxcd.io/v1/GitRepository/flux-system/podinfo' } } } };
    expect(buildRevisionOrdering('flux', [needy, repository]).cycles).toEqual([[namespace.objectKey, repository.objectKey].sort()]);
  });

  it('names an unreadable annotation', () => {
    const broken = entry('core/ConfigMap/app/x', { metadata: { name: 'x', namespace: 'app', annotations: { 'tidemark.dev/sync-wave': 'early', 'tidemark.dev/depends-on': 'postgres' } } });
    expect(buildRevisionOrdering('apps', [broken]).nodes.get(broken.objectKey)!.problems).toEqual([
      'annotation tidemark.dev/sync-wave: "early" is not a sync wave: write a whole number such as "-1", "0" or "2".',
      expect.stringMatching(/^tidemark.dev\/depends-on: "postgres" is not a dependency/),
    ]);
  });
});

describe('findCycles', () => {
  it('finds a self-loop and ignores edges to unknown nodes', () => {
    expect(findCycles(new Map([['a', ['a', 'z']], ['b', ['a']]]))).toEqual([['a']]);
  });

  it('walks a long chain without overflowing the stack', () => {
    const edges = new Map(Array.from({ length: 50_000 }, (_, index) => [`n${index}`, index === 0 ? [] : [`n${index - 1}`]]));
    expect(findCycles(edges)).toEqual([]);
  });
});
