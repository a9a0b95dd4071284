import type { FieldPath, FieldPathSegment } from './field-set';

/** resolvePath reads the value at a field path in an object; undefined when it is absent. */
export function resolvePath(object: unknown, path: FieldPath): unknown {
  let current: unknown = object;
  for (const segment of path) {
    current = step(current, segment);
    if (current === undefined) return undefined;
  }
  return current;
}

function step(current: unknown, segment: FieldPathSegment): unknown {
  switch (segment.kind) {
    case 'field':
      return isRecord(current) ? current[segment.name] : undefined;
    case 'key':
      return Array.isArray(current) ? current.find((item) => matchesKeys(item, segment.keys)) : undefined;
    case 'value':
      return Array.isArray(current) && current.some((item) => JSON.stringify(item) === JSON.stringify(segment.value)) ? segment.value : undefined;
    case 'index':
      return Array.isArray(current) ? current[segment.index] : undefined;
  }
}

function matchesKeys(item: unknown, keys: Record<string, unknown>): boolean {
  return isRecord(item) && Object.entries(keys).every(([name, value]) => JSON.stringify(item[name]) === JSON.stringify(value));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * toPointer writes a field path as a JSON pointer. List items keyed by fields are written by
 * their key values, e.g. /spec/template/spec/containers/name=app/image, which stays readable
 * and stable when the list is reordered.
 */
export function toPointer(path: FieldPath): string {
  return path.map((segment) => `/${escape(segmentText(segment))}`).join('');
}

function segmentText(segment: FieldPathSegment): string {
  switch (segment.kind) {
    case 'field': return segment.name;
    case 'key': return Object.entries(segment.keys).map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(',');
    case 'value': return typeof segment.value === 'string' ? segment.value : JSON.stringify(segment.value);
    case 'index': return String(segment.index);
  }
}

function escape(text: string): string {
  return text.replaceAll('~', '~0').replaceAll('/', '~1');
}
