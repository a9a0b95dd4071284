import { describe, expect, it } from 'vitest';
import { parseUnitConfig } from './unit-config';

describe('tidemark-render.yaml', () => {
  it('is empty when absent, and per cluster when it names cluster values', () => {
    expect(parseUnitConfig(undefined, 'a/tidemark-render.yaml')).toEqual({ perClusterNeeded: false });
    expect(parseUnitConfig('kustomize:\n  replicas: [{name: web, count: "${cluster.variables.replicas}"}]\n', 'a/tidemark-render.yaml').perClusterNeeded).toBe(true);
    expect(parseUnitConfig('helm:\n  clusterValues: {eu: {a: 1}}\n', 'a/tidemark-render.yaml').perClusterNeeded).toBe(true);
    expect(parseUnitConfig('helm:\n  releaseName: shop\n', 'a/tidemark-render.yaml').perClusterNeeded).toBe(false);
  });

  it('names the file and the field of a mistake', () => {
    expect(() => parseUnitConfig('helm:\n  releaseName: Not_Valid\n', 'charts/shop/tidemark-render.yaml')).toThrow(/^charts\/shop\/tidemark-render.yaml: \/helm\/releaseName /);
    expect(() => parseUnitConfig('kustomise: {}\n', 'x/tidemark-render.yaml')).toThrow(/^x\/tidemark-render.yaml: /);
  });
});
