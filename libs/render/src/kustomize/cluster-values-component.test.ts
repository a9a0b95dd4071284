import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { RenderFailure } from '../render-failure';
import { clusterValuesComponent } from './cluster-values-component';

const cluster = { name: 'eu-1', labels: { region: 'eu' }, variables: { host: 'shop.eu.example.com' } };
const where = 'apps/web/tidemark-render.yaml';

describe('clusterValuesComponent', () => {
  it('is undefined when the config sets no labels, annotations or patches', () => {
    expect(clusterValuesComponent({ images: [{ name: 'nginx', newTag: '1' }] }, cluster, where)).toBeUndefined();
  });

  it('makes a Component of labels (off selectors), annotations and patches with the cluster\'s values', () => {
    const component = clusterValuesComponent({
      labels: { region: '${cluster.labels.region}' },
      annotations: { owner: 'team' },
      patches: [{ target: { kind: 'Ingress', name: 'web' }, patch: '- op: replace\n  path: /spec/rules/0/host\n  value: ${cluster.variables.host}\n' }],
    }, cluster, where) as { kind: string; labels: unknown; commonAnnotations: unknown; patches: Array<{ patch: string; target: unknown }> };
    expect(component.kind).toBe('Component');
    expect(component.labels).toEqual([{ pairs: { region: '${cluster.labels.region}' }, includeSelectors: false, includeTemplates: false }]);
    expect(component.commonAnnotations).toEqual({ owner: 'team' });
    expect(component.patches[0]!.target).toEqual({ kind: 'Ingress', name: 'web' });
    expect(parse(component.patches[0]!.patch)).toEqual([{ op: 'replace', path: '/spec/rules/0/host', value: 'shop.eu.example.com' }]);
  });

  it('keeps a hostile value inside the value it replaces: no new operation, no new field', () => {
    const hostile = { ...cluster, variables: { host: 'x\n- op: remove\n  path: /metadata' } };
    const component = clusterValuesComponent({ patches: [{ patch: '- op: replace\n  path: /spec/rules/0/host\n  value: ${cluster.variables.host}\n' }] }, hostile, where) as { patches: Array<{ patch: string }> };
    expect(parse(component.patches[0]!.patch)).toEqual([{ op: 'replace', path: '/spec/rules/0/host', value: hostile.variables.host }]);
  });

  it('refuses a patch that is not a mapping or a list, naming the file and the patch', () => {
    expect(() => clusterValuesComponent({ patches: [{ patch: 'just text' }] }, cluster, where)).toThrow(RenderFailure);
    expect(() => clusterValuesComponent({ patches: [{ patch: 'just text' }] }, cluster, where)).toThrow(`${where}: kustomize.patches[0]`);
  });

  it('names a value the cluster does not set', () => {
    expect(() => clusterValuesComponent({ patches: [{ patch: 'a: ${cluster.variables.missing}' }] }, cluster, where)).toThrow('cluster.variables.missing');
  });
});
