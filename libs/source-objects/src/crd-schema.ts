import type { TSchema } from '@sinclair/typebox';

/** OpenApiSchema is the part of a CRD's openAPIV3Schema that crdSchemaOf writes. */
export interface OpenApiSchema {
  type?: string;
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  items?: OpenApiSchema;
  additionalProperties?: OpenApiSchema;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  'x-kubernetes-validations'?: { rule: string; message: string }[];
  'x-kubernetes-int-or-string'?: true;
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

const copied = ['description', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'minItems', 'maxItems'] as const;

/**
 * crdSchemaOf turns a TypeBox type into a structural CRD schema, so a CRD and a parser share one
 * definition. A union of objects that each hold one field (a ref: branch, tag, semver or commit)
 * becomes one object with every field optional and a CEL rule that exactly one is set; a union
 * of literals becomes an enum, and an integer or a string int-or-string. Anything else it cannot express throws, naming the path, so a new
 * field of an unsupported shape breaks generation rather than the CRD.
 */
export function crdSchemaOf(schema: TSchema, path = '.'): OpenApiSchema {
  const input = schema as JsonSchema;
  const out: OpenApiSchema = {};
  for (const bound of copied) if (input[bound] !== undefined) (out as Record<string, unknown>)[bound] = input[bound];
  if (input.anyOf) return { ...out, ...unionSchema(input.anyOf, path) };
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

function objectParts(input: JsonSchema, path: string): OpenApiSchema {
  if (input.patternProperties) {
    const [value] = Object.values(input.patternProperties);
    return { additionalProperties: crdSchemaOf(value as TSchema, `${path}.*`) };
  }
  const properties = Object.fromEntries(Object.entries(input.properties ?? {}).map(([name, value]) => [name, crdSchemaOf(value as TSchema, `${path}.${name}`)]));
  return { properties, ...(input.required?.length ? { required: [...input.required] } : {}) };
}

function unionSchema(variants: JsonSchema[], path: string): OpenApiSchema {
  // A count or a percentage ("25%"): the API server's int-or-string; the parser checks the string's form.
  if (variants.length === 2 && variants.some((variant) => variant.type === 'integer') && variants.some((variant) => variant.type === 'string')) {
    return { 'x-kubernetes-int-or-string': true };
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
    'x-kubernetes-validations': [{
      rule: `[${keys.map((key) => `has(self.${key})`).join(', ')}].filter(set, set).size() == 1`,
      message: `set exactly one of ${keys.join(', ')}`,
    }],
  };
}
