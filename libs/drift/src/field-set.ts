/**
 * A managed-fields set (fieldsV1) marks fields with `f:<name>`, list items by key with
 * `k:<json>`, set values with `v:<json>`, positions with `i:<n>`, and the element itself with
 * `.`. FieldPathSegment is one step of a path through it.
 */
export type FieldPathSegment =
  | { kind: 'field'; name: string }
  | { kind: 'key'; keys: Record<string, unknown> }
  | { kind: 'value'; value: unknown }
  | { kind: 'index'; index: number };

export type FieldPath = FieldPathSegment[];

type FieldsV1 = { [member: string]: FieldsV1 };

/**
 * leafPaths lists the paths a field set owns at their deepest level: a field with no owned
 * children, or a list item owned as a whole. Those are the values whose equality decides drift.
 */
export function leafPaths(fields: unknown): FieldPath[] {
  const paths: FieldPath[] = [];
  walk(fields as FieldsV1, [], paths);
  return paths;
}

function walk(node: FieldsV1, prefix: FieldPath, into: FieldPath[]): void {
  const members = Object.keys(node ?? {}).filter((member) => member !== '.');
  if (members.length === 0) {
    if (prefix.length > 0) into.push(prefix);
    return;
  }
  for (const member of members) {
    const segment = parseSegment(member);
    if (segment) walk(node[member] ?? {}, [...prefix, segment], into);
  }
}

function parseSegment(member: string): FieldPathSegment | undefined {
  const body = member.slice(2);
  switch (member.slice(0, 2)) {
    case 'f:': return { kind: 'field', name: body };
    case 'k:': return { kind: 'key', keys: JSON.parse(body) as Record<string, unknown> };
    case 'v:': return { kind: 'value', value: JSON.parse(body) as unknown };
    case 'i:': return { kind: 'index', index: Number(body) };
    default: return undefined;
  }
}

/** ownsPath tells whether a field set owns a path, or a prefix of it (owning a parent owns its members). */
export function ownsPath(fields: unknown, path: FieldPath): boolean {
  let node = fields as FieldsV1 | undefined;
  for (const segment of path) {
    if (!node) return false;
    const member = Object.keys(node).find((candidate) => sameSegment(parseSegment(candidate), segment));
    if (member === undefined) return false;
    node = node[member];
    if (node && Object.keys(node).length === 0) return true;
  }
  return node !== undefined;
}

function sameSegment(a: FieldPathSegment | undefined, b: FieldPathSegment): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
