import { isPlainObject, type PlainObject } from '../../shared/plain-object';

/** FieldPath is a path of object keys from the root of a manifest, e.g. ['spec', 'replicas']. */
export type FieldPath = readonly string[];

/** objectAt returns the object at `path`, creating empty objects on the way. */
export function objectAt(root: PlainObject, path: FieldPath): PlainObject {
  let current = root;
  for (const key of path) {
    const next = current[key];
    if (!isPlainObject(next)) {
      current[key] = {};
    }
    current = current[key] as PlainObject;
  }
  return current;
}

/** listAt returns the list of objects at `path`, creating it (and its parents) when absent. */
export function listAt(root: PlainObject, path: FieldPath): PlainObject[] {
  const parent = objectAt(root, path.slice(0, -1));
  const key = path[path.length - 1] as string;
  if (!Array.isArray(parent[key])) {
    parent[key] = [];
  }
  return parent[key] as PlainObject[];
}

/** setAt writes a value at `path`; `undefined` removes the field. */
export function setAt(root: PlainObject, path: FieldPath, value: unknown): void {
  const key = path[path.length - 1] as string;
  const parent = objectAt(root, path.slice(0, -1));
  if (value === undefined) {
    delete parent[key];
  } else {
    parent[key] = structuredClone(value);
  }
}

/**
 * leavesOf splits a value into the paths of its leaves (scalars, lists, empty objects), so
 * two features may write different fields of one object without conflicting.
 */
export function leavesOf(path: FieldPath, value: unknown): [FieldPath, unknown][] {
  if (!isPlainObject(value) || Object.keys(value).length === 0) {
    return [[path, value]];
  }
  return Object.entries(value).flatMap(([key, field]) => leavesOf([...path, key], field));
}

/** upsertByKey replaces the item whose `keyField` matches, or appends it (keeping order stable). */
export function upsertByKey(list: PlainObject[], keyField: string, item: PlainObject): void {
  const index = list.findIndex((existing) => existing[keyField] === item[keyField]);
  if (index < 0) {
    list.push(structuredClone(item));
  } else {
    list[index] = structuredClone(item);
  }
}

/** formatPath writes a path for keys and messages; segments with dots or brackets are quoted. */
export function formatPath(path: FieldPath): string {
  return path.map((segment, index) => (/[.[\]"]/.test(segment) ? `[${JSON.stringify(segment)}]` : `${index === 0 ? '' : '.'}${segment}`)).join('');
}
