import type { TSchema } from '@sinclair/typebox';

/** A CEL rule in a CRD's x-kubernetes-validations. */
export interface CelRule {
  rule: string;
  message: string;
  fieldPath?: string;
}

/** OpenApiSchema is the part of a CRD's openAPIV3Schema that crdSchemaOf writes. */
export interface OpenApiSchema {
  type?: string;
  description?: string;
  default?: unknown;
  format?: string;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  items?: OpenApiSchema;
  additionalProperties?: OpenApiSchema;
  anyOf?: OpenApiSchema[];
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  'x-kubernetes-validations'?: CelRule[];
  'x-kubernetes-int-or-string'?: true;
  /** Any other Kubernetes marker (list-type, list-map-keys, preserve-unknown-fields, …), written as given. */
  [marker: `x-kubernetes-${string}`]: unknown;
}

interface JsonSchema {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  const?: unknown;
  [bound: string]: unknown;
}

// Keywords a CRD takes as TypeBox writes them; every x-kubernetes-* marker is copied too.
const copied = ['description', 'default', 'format', 'enum', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'minItems', 'maxItems'] as const;
const validations = 'x-kubernetes-validations';
const intOrString = 'x-kubernetes-int-or-string';
const preserveUnknown = 'x-kubernetes-preserve-unknown-fields';

/**
 * crdSchemaOf turns a TypeBox type into a structural CRD schema, so a CRD, the TS type (Static<>)
 * and the runtime check (Value.Check) share one definition. Descriptions, defaults, formats, bounds
 * and every `x-kubernetes-*` option are written as given. A union of objects that each hold one
 * field (a ref: branch, tag, semver or commit) becomes one object with every field optional and a
 * CEL rule that exactly one is set; a union of literals becomes an enum; an integer or a string is
 * int-or-string (with its anyOf kept when the union names the marker itself, as kubebuilder
 * writes it); a record of Unknown marked x-kubernetes-preserve-unknown-fields is a free-form
 * object. Anything else it cannot express throws, naming the path, so a new field of an
 * unsupported shape breaks generation rather than the CRD.
 */
export function crdSchemaOf(schema: TSchema, path = '.'): OpenApiSchema {
  const input = schema as JsonSchema;
  const out = annotationsOf(input);
  if (input.anyOf) {
    // The rules a union generates come before those it declares.
    const union = unionSchema(input, path);
    const rules = [...(union[validations] ?? []), ...(out[validations] ?? [])];
    return { ...out, ...union, ...(rules.length > 0 ? { [validations]: rules } : {}) };
  }
  switch (input.type) {
    case 'string': case 'integer': case 'number': case 'boolean':
      return { type: input.type, ...out };
    case 'array':
      if (!input.items) throw new Error(`${path}: an array needs an item type`);
      return { type: 'array', ...out, items: crdSchemaOf(input.items as TSchema, `${path}[]`) };
    case 'object':
      return { type: 'object', ...out, ...objectParts(input, path) };
    default:
      throw new Error(`${path}: a CRD schema cannot express ${JSON.stringify(input.type ?? Object.keys(input))}`);
  }
}

function annotationsOf(input: JsonSchema): OpenApiSchema {
  const out: Record<string, unknown> = {};
  for (const bound of copied) if (input[bound] !== undefined) out[bound] = input[bound];
  for (const [key, value] of Object.entries(input)) if (key.startsWith('x-kubernetes-')) out[key] = structuredClone(value);
  return out as OpenApiSchema;
}

function objectParts(input: JsonSchema, path: string): OpenApiSchema {
  if (input.patternProperties) {
    const [value] = Object.values(input.patternProperties) as JsonSchema[];
    if (value && value.type === undefined && value.anyOf === undefined) {
      if (input[preserveUnknown] !== true) throw new Error(`${path}: a free-form object needs ${preserveUnknown}: true`);
      return {};
    }
    return { additionalProperties: crdSchemaOf(value as TSchema, `${path}.*`) };
  }
  const properties = Object.fromEntries(Object.entries(input.properties ?? {}).map(([name, value]) => [name, crdSchemaOf(value as TSchema, `${path}.${name}`)]));
  return {
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
    ...(input.required?.length ? { required: [...input.required] } : {}),
  };
}

function unionSchema(input: JsonSchema, path: string): OpenApiSchema {
  const variants = input.anyOf ?? [];
  // A count or a percentage ("25%"): the API server's int-or-string; the parser checks the string's form.
  if (variants.length === 2 && variants.some((variant) => variant.type === 'integer') && variants.some((variant) => variant.type === 'string')) {
    return input[intOrString] === true ? { anyOf: [{ type: 'integer' }, { type: 'string' }] } : { [intOrString]: true };
  }
  if (variants.every((variant) => variant.const !== undefined)) {
    return { type: typeof variants[0]!.const === 'number' ? 'number' : 'string', enum: variants.map((variant) => variant.const) };
  }
  const keys = variants.map((variant) => {
    const names = Object.keys(variant.properties ?? {});
    if (variant.type !== 'object' || names.length !== 1) throw new Error(`${path}: only a union of one-field objects (or of literals) can be a CRD schema`);
    return names[0]!;
  });
  const properties = Object.fromEntries(variants.map((variant, index) => [keys[index]!, crdSchemaOf(variant.properties![keys[index]!] as TSchema, `${path}.${keys[index]!}`)]));
  return {
    type: 'object',
    properties,
    [validations]: [{
      rule: `[${keys.map((key) => `has(self.${key})`).join(', ')}].filter(set, set).size() == 1`,
      message: `set exactly one of ${keys.join(', ')}`,
    }],
  };
}

/** withCelRules adds CEL rules to a TypeBox schema for its CRD; the runtime check ignores them. */
export function withCelRules<Schema extends TSchema>(schema: Schema, rules: readonly CelRule[]): Schema {
  const declared = (schema as { [validations]?: CelRule[] })[validations] ?? [];
  return { ...schema, [validations]: [...declared, ...rules] };
}
