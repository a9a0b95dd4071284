import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { SourceSpecInput } from '@tidemark/git-source';
import { sourceCrd, sourceCrdHeader } from './source-crd';

const specOf = () => (sourceCrd().spec as { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown>; required: string[] } } } } }[] }).versions[0]!.schema.openAPIV3Schema.properties.spec;

describe('Source CRD', () => {
  it('carries every field of a config-file source but its name and resolved auth, so the two cannot drift', () => {
    const configFields = Object.keys(SourceSpecInput.properties).filter((field) => field !== 'name' && field !== 'auth');
    expect(Object.keys(specOf().properties).sort()).toEqual([...configFields, 'secretRef', 'webhook', 'suspend', 'decryption'].sort());
    expect(specOf().required.sort()).toEqual(['intervalMs', 'ref', 'url']);
  });

  it('deploy/crds/sources.tidemark.dev.yaml matches the TypeScript (run `npx tsx scripts/generate-crds.ts`)', () => {
    const file = readFileSync(new URL('../../../deploy/crds/sources.tidemark.dev.yaml', import.meta.url), 'utf8');
    expect(file).toBe(sourceCrdHeader + stringify(sourceCrd(), { lineWidth: 0 }));
  });
});
