import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { SourceSpecInput } from '@tidemark/git-source';
import { crdSchemaOf } from './crd-schema';
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

describe('crdSchemaOf', () => {
  it('turns a union of one-field objects into one object with an exactly-one CEL rule', () => {
    const schema = crdSchemaOf(Type.Union([Type.Object({ branch: Type.String() }), Type.Object({ tag: Type.String({ maxLength: 9 }) })]));
    expect(schema).toEqual({
      type: 'object',
      properties: { branch: { type: 'string' }, tag: { type: 'string', maxLength: 9 } },
      'x-kubernetes-validations': [{ rule: '[has(self.branch), has(self.tag)].filter(set, set).size() == 1', message: 'set exactly one of branch, tag' }],
    });
  });

  it('turns a union of literals into an enum, a record into additionalProperties', () => {
    expect(crdSchemaOf(Type.Union([Type.Literal('a'), Type.Literal('b')]))).toEqual({ type: 'string', enum: ['a', 'b'] });
    expect(crdSchemaOf(Type.Record(Type.String(), Type.Integer()))).toEqual({ type: 'object', additionalProperties: { type: 'integer' } });
  });

  it('refuses a shape a CRD cannot express, naming where', () => {
    expect(() => crdSchemaOf(Type.Object({ auth: Type.Union([Type.Object({ a: Type.String(), b: Type.String() }), Type.Object({ c: Type.String() })]) }))).toThrow(/\.\.auth: only a union of one-field objects/);
    expect(() => crdSchemaOf(Type.Object({ any: Type.Unknown() }))).toThrow(/\.\.any: a CRD schema cannot express/);
  });
});
