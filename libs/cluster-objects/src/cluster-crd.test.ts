import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { clusterCrd, clusterCrdHeader } from './cluster-crd';

describe('Cluster CRD', () => {
  it('deploy/crds/clusters.tidemark.dev.yaml matches the TypeScript (run `npx tsx scripts/generate-crds.ts`)', () => {
    const file = readFileSync(new URL('../../../deploy/crds/clusters.tidemark.dev.yaml', import.meta.url), 'utf8');
    expect(file).toBe(clusterCrdHeader + stringify(clusterCrd(), { lineWidth: 0 }));
  });

  it('is namespaced, with a status subresource and the exactly-one-credential rule', () => {
    const crd = clusterCrd() as unknown as { spec: { scope: string; versions: { subresources: unknown; schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown>; 'x-kubernetes-validations': { rule: string }[] } } } } }[] } };
    expect(crd.spec.scope).toBe('Namespaced');
    const [version] = crd.spec.versions;
    expect(version!.subresources).toEqual({ status: {} });
    const spec = version!.schema.openAPIV3Schema.properties.spec;
    expect(Object.keys(spec.properties).sort()).toEqual(['allowExecPlugins', 'inCluster', 'kubeconfigSecretRef', 'labels', 'prune']);
    expect(spec['x-kubernetes-validations'][0]!.rule).toContain('has(self.kubeconfigSecretRef)');
  });
});
