// One checker for the Git hosts' own API descriptions, Swagger 2.0 (Gitea, GitLab) and OpenAPI 3.0
// (GitHub): it finds the operation a request names (method and path template) and lists, as
// sentences, how the request breaks it: path and query parameters, the body against its schema
// (required fields, types, enums, maxLength, unknown fields), the content type, and an API key the
// description asks for in a header. The loopback stand-ins (host-stand-in.ts) run every request
// through it, so the real client code is checked over real HTTP.
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';

/** Schema is the part of JSON Schema (as Swagger 2.0 and OpenAPI 3.0 use it) that the checker reads. */
export interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: Schema[];
  maxLength?: number;
  minLength?: number;
  nullable?: boolean;
}

/** Parameter: OpenAPI 3 puts the type in `schema`; Swagger 2.0 beside the name (and a body's in `schema`). */
interface Parameter extends Pick<Schema, 'type' | 'enum' | 'maxLength' | 'minLength'> {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  operationId?: string;
  parameters?: (Parameter | { $ref: string })[];
  consumes?: string[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
}

interface SecurityScheme { type: string; name?: string; in?: string; scheme?: string }

interface Document {
  swagger?: string;
  openapi?: string;
  consumes?: string[];
  paths: Record<string, Record<string, Operation>>;
  definitions?: Record<string, Schema>;
  securityDefinitions?: Record<string, SecurityScheme>;
  components?: { parameters?: Record<string, Parameter>; schemas?: Record<string, Schema>; securitySchemes?: Record<string, SecurityScheme> };
}

/** CheckedRequest is one request as a host received it; `path` is relative to the description's paths, percent-encoding kept. */
export interface CheckedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, `undefined` when none was sent. */
  body: unknown;
}

/** CheckOptions say what the description cannot: the token a header must carry, and query parameters a host is known to ignore. */
export interface CheckOptions {
  token?: string;
  ignoreQuery?: string[];
}

/** Match is the operation a request names, and its path parameters as sent (percent-decoded). */
export interface Match {
  template: string;
  method: string;
  operation: Operation;
  pathValues: Record<string, string>;
}

/** ApiDescription is one host's description (a subset of its published file), loaded once. */
export class ApiDescription {
  private constructor(readonly name: string, private readonly document: Document) {
    // A subset may leave out the version field; `paths` is what every version has.
    if (!document.paths) throw new Error(`${name} has no paths: it is not a Swagger 2.0 or OpenAPI 3 description`);
  }

  /** load reads a description from a JSON file beside the caller. */
  static load(file: URL): ApiDescription {
    return new ApiDescription(file.pathname.split('/').pop() ?? String(file), JSON.parse(readFileSync(file, 'utf8')) as Document);
  }

  /** match finds the operation for a method and a path; templates with more fixed text win over looser ones. */
  match(method: string, path: string): Match | undefined {
    const templates = Object.keys(this.document.paths).sort((a, b) => literalLength(b) - literalLength(a));
    for (const template of templates) {
      const names = [...template.matchAll(/\{([^}]+)\}/g)].map((found) => found[1]!);
      const pattern = new RegExp(`^${template.split(/\{[^}]+\}/).map(escapeRegExp).join('([^/]+)')}$`);
      const found = pattern.exec(path);
      const operation = this.document.paths[template]![method.toLowerCase()];
      if (!found || !operation) continue;
      const pathValues = Object.fromEntries(names.map((name, index) => [name, safeDecode(found[index + 1]!)]));
      return { template, method: method.toUpperCase(), operation, pathValues };
    }
    return undefined;
  }

  /** check lists how a request breaks the operation it names; no operation is a problem of its own. */
  check(request: CheckedRequest, options: CheckOptions = {}): { match?: Match; problems: string[] } {
    const match = this.match(request.method, request.path);
    if (!match) return { problems: [`${request.method} ${request.path} is no operation of ${this.name}`] };
    const where = `${match.method} ${match.template}`;
    const problems = [
      ...this.checkParameters(match, request, options).map((problem) => `${where}: ${problem}`),
      ...this.checkBody(match.operation, request).map((problem) => `${where}: ${problem}`),
      ...this.checkCredentials(request, options).map((problem) => `${where}: ${problem}`),
    ];
    return { match, problems };
  }

  private parameters(operation: Operation): Parameter[] {
    return (operation.parameters ?? []).map((parameter) => ('$ref' in parameter && parameter.$ref ? this.resolve<Parameter>(parameter.$ref) : parameter as Parameter));
  }

  private checkParameters(match: Match, request: CheckedRequest, options: CheckOptions): string[] {
    const problems: string[] = [];
    const declared = this.parameters(match.operation);
    for (const parameter of declared.filter((entry) => entry.in === 'path')) {
      const value = match.pathValues[parameter.name];
      if (value === undefined) problems.push(`path parameter ${parameter.name} is missing`);
      else problems.push(...checkText(value, schemaOf(parameter), `path parameter ${parameter.name}`, this));
    }
    for (const parameter of declared.filter((entry) => entry.in === 'query')) {
      const value = request.query.get(parameter.name);
      if (value === null && parameter.required) problems.push(`query parameter ${parameter.name} is required`);
      if (value !== null) problems.push(...checkText(value, schemaOf(parameter), `query parameter ${parameter.name}`, this));
    }
    const known = new Set([...declared.filter((entry) => entry.in === 'query').map((entry) => entry.name), ...(options.ignoreQuery ?? [])]);
    for (const name of new Set(request.query.keys())) if (!known.has(name)) problems.push(`query parameter ${name} is not in the description`);
    return problems;
  }

  private checkBody(operation: Operation, request: CheckedRequest): string[] {
    const body = this.bodyOf(operation);
    if (!body) return request.body === undefined ? [] : ['a body was sent to an operation that takes none'];
    if (request.body === undefined) return body.required ? ['the body is required'] : [];
    const contentType = String(request.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (body.mediaTypes.length > 0 && !body.mediaTypes.includes(contentType)) return [`content-type "${contentType}" is not ${body.mediaTypes.join(' or ')}`];
    return checkValue(request.body, body.schema, 'the body', this);
  }

  /** bodyOf: Swagger 2.0 has an `in: body` parameter and `consumes`; OpenAPI 3 a requestBody keyed by media type. */
  private bodyOf(operation: Operation): { schema: Schema; required: boolean; mediaTypes: string[] } | undefined {
    if (operation.requestBody) {
      const mediaTypes = Object.keys(operation.requestBody.content);
      const json = operation.requestBody.content['application/json'] ?? Object.values(operation.requestBody.content)[0];
      return json ? { schema: json.schema, required: operation.requestBody.required === true, mediaTypes } : undefined;
    }
    const parameter = this.parameters(operation).find((entry) => entry.in === 'body');
    if (!parameter?.schema) return undefined;
    return { schema: parameter.schema, required: parameter.required === true, mediaTypes: operation.consumes ?? this.document.consumes ?? [] };
  }

  /** checkCredentials: an API key in a header, if the description names one, must carry the token; a token never rides in the query. */
  private checkCredentials(request: CheckedRequest, options: CheckOptions): string[] {
    if (options.token === undefined) return [];
    const problems = [...request.query.values()].includes(options.token) ? ['the token is in the query string, where logs keep it'] : [];
    const schemes = Object.values(this.document.securityDefinitions ?? this.document.components?.securitySchemes ?? {});
    const headers = schemes.filter((scheme) => scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name).map((scheme) => scheme.name!.toLowerCase());
    if (headers.length > 0 && !headers.some((header) => request.headers[header] === options.token)) problems.push(`no ${headers.join(' or ')} header carries the token`);
    return problems;
  }

  /** resolve follows a local `$ref` (#/definitions/…, #/components/…/…). */
  resolve<T>(reference: string): T {
    if (!reference.startsWith('#/')) throw new Error(`${this.name}: only local $refs are read, not ${reference}`);
    let node: unknown = this.document;
    for (const key of reference.slice(2).split('/')) node = (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`${this.name}: ${reference} is not in the subset`);
    return node as T;
  }
}

/** checkValue lists how a JSON value breaks a schema. Fields a schema does not name are reported: a host drops them silently, so a misspelt field would be lost. */
export function checkValue(value: unknown, given: Schema, where: string, description: ApiDescription): string[] {
  const schema = given.$ref ? description.resolve<Schema>(given.$ref) : given;
  if (value === null) return schema.nullable ? [] : [`${where} is null`];
  if (schema.oneOf) return schema.oneOf.some((option) => checkValue(value, option, where, description).length === 0) ? [] : [`${where} matches none of its oneOf schemas`];
  if (schema.type && !hasType(value, schema.type)) return [`${where} is not ${/^[aeiou]/.test(schema.type) ? 'an' : 'a'} ${schema.type}`];
  return [...checkConstraints(value, schema, where), ...checkContents(value, schema, where, description)];
}

/** checkConstraints: enum, and a string's length. */
function checkConstraints(value: unknown, schema: Schema, where: string): string[] {
  const problems: string[] = [];
  if (schema.enum && !schema.enum.includes(value)) problems.push(`${where} ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`);
  if (typeof value !== 'string') return problems;
  if (schema.maxLength !== undefined && value.length > schema.maxLength) problems.push(`${where} is longer than ${schema.maxLength} characters`);
  if (schema.minLength !== undefined && value.length < schema.minLength) problems.push(`${where} is shorter than ${schema.minLength} characters`);
  return problems;
}

/** checkContents: an array's items and an object's fields. */
function checkContents(value: unknown, schema: Schema, where: string, description: ApiDescription): string[] {
  if (Array.isArray(value) && schema.items) return value.flatMap((item, index) => checkValue(item, schema.items!, `${where}[${index}]`, description));
  if (isObject(value) && (schema.properties || schema.required)) return checkObject(value, schema, where, description);
  return [];
}

function checkObject(value: Record<string, unknown>, schema: Schema, where: string, description: ApiDescription): string[] {
  const problems = (schema.required ?? []).filter((field) => !(field in value)).map((field) => `${where}: ${field} is required`);
  for (const [field, entry] of Object.entries(value)) {
    const declared = schema.properties?.[field];
    if (declared) problems.push(...checkValue(entry, declared, `${where}.${field}`, description));
    else if (schema.additionalProperties !== true && typeof schema.additionalProperties !== 'object') problems.push(`${where}: ${field} is not a field of the schema`);
  }
  return problems;
}

/** checkText checks a path or query value, which arrives as text: an integer parameter must be digits. */
function checkText(text: string, schema: Schema, where: string, description: ApiDescription): string[] {
  const resolved = schema.$ref ? description.resolve<Schema>(schema.$ref) : schema;
  if (resolved.type === 'integer' || resolved.type === 'number') {
    return /^-?\d+(\.\d+)?$/.test(text) ? checkValue(Number(text), resolved, where, description) : [`${where} "${text.slice(0, 40)}" is not a number`];
  }
  if (resolved.type === 'boolean') return /^(true|false)$/.test(text) ? [] : [`${where} "${text.slice(0, 40)}" is not true or false`];
  return checkValue(text, resolved, where, description);
}

function schemaOf(parameter: Parameter): Schema {
  return parameter.schema ?? { type: parameter.type, enum: parameter.enum, maxLength: parameter.maxLength, minLength: parameter.minLength };
}

function hasType(value: unknown, type: string): boolean {
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'number') return typeof value === 'number';
  if (type === 'array') return Array.isArray(value);
  if (type === 'object') return isObject(value);
  if (type === 'file') return true;
  return typeof value === type;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function literalLength(template: string): number {
  return template.replace(/\{[^}]+\}/g, '').length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
