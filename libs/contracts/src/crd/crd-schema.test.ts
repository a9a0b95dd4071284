import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { crdSchemaOf, withCelRules } from './crd-schema';

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

  it('writes descriptions, defaults, formats and x-kubernetes markers as given; the runtime check ignores them', () => {
    const list = Type.Array(Type.Object({ name: Type.String(), port: Type.Optional(Type.Integer({ default: 80, format: 'int32' })) }), { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], description: 'Ports.' });
    expect(crdSchemaOf(withCelRules(list, [{ rule: 'size(self) < 3', message: 'at most two' }]))).toEqual({
      type: 'array',
      description: 'Ports.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-validations': [{ rule: 'size(self) < 3', message: 'at most two' }],
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', default: 80, format: 'int32' } } },
    });
    expect(Value.Check(list, [{ name: 'http', port: 8080 }])).toBe(true);
    expect(Value.Check(list, [{ port: 8080 }])).toBe(false);
  });

  it('writes int-or-string bare, or with its anyOf when the union names the marker; a free-form object without properties', () => {
    expect(crdSchemaOf(Type.Union([Type.Integer(), Type.String()]))).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(crdSchemaOf(Type.Union([Type.Integer(), Type.String()], { 'x-kubernetes-int-or-string': true }))).toEqual({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    expect(crdSchemaOf(Type.Record(Type.String(), Type.Unknown(), { 'x-kubernetes-preserve-unknown-fields': true }))).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(crdSchemaOf(Type.Object({}))).toEqual({ type: 'object' });
    expect(() => crdSchemaOf(Type.Object({ free: Type.Record(Type.String(), Type.Unknown()) }))).toThrow(/\.\.free: a free-form object needs x-kubernetes-preserve-unknown-fields/);
  });
});
