// Every CRD under deploy/crds is generated from one TypeBox schema per version (crdSchemaOf and
// customResourceDefinition in libs/contracts). Each library's test compares its own file byte for
// byte; this one proves what is shipped, parsed, deep-equals what the code generates, for all of
// them, and that no YAML there is left without a generator.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { clusterCrd } from '@tidemark/cluster-objects';
import type { KubernetesManifest } from '@tidemark/contracts';
import { rolloutCrd } from '@tidemark/fanout';
import { builtinKinds, healthRuleCrd } from '@tidemark/kinds';
import { sourceCrd } from '@tidemark/source-objects';

const crdDirectory = new URL('../../../deploy/crds/', import.meta.url);
const generated: KubernetesManifest[] = [...builtinKinds.map((kind) => kind.crd), sourceCrd(), healthRuleCrd(), clusterCrd(), rolloutCrd()];

describe('deploy/crds', () => {
  it('holds one generated file per CRD and nothing else but the kustomization', () => {
    const files = readdirSync(crdDirectory).filter((name) => name !== 'kustomization.yaml').sort();
    expect(files).toEqual(generated.map((crd) => `${crd.metadata.name}.yaml`).sort());
  });

  it.each(generated.map((crd) => [crd.metadata.name, crd] as const))('%s deep-equals the CRD its TypeBox schemas generate', (name, crd) => {
    const shipped: unknown = parse(readFileSync(new URL(`${name}.yaml`, crdDirectory), 'utf8'));
    // Through JSON: what the API server receives, without the builder's undefined or shared objects.
    expect(shipped).toStrictEqual(JSON.parse(JSON.stringify(crd)));
  });
});
