import { isPlainObject, type PlainObject } from './plain-object';

/**
 * deepMerge applies `patch` on top of `base` the way `spec.override` promises: objects merge
 * key by key, `null` deletes a field, lists whose items all carry a `name` merge item by
 * item (Kubernetes' own merge key for containers, env, ports, volumes), and any other list
 * (including an empty one, so `[]` clears a list) or scalar replaces. Neither input is modified.
 */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (isPlainObject(base) && isPlainObject(patch)) {
    return mergeObjects(base, patch);
  }
  if (Array.isArray(base) && Array.isArray(patch) && patch.length > 0 && isNamedList(base) && isNamedList(patch)) {
    return mergeNamedLists(base, patch);
  }
  return structuredClone(patch);
}

function mergeObjects(base: PlainObject, patch: PlainObject): PlainObject {
  const merged: PlainObject = structuredClone(base);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete merged[key];
    } else {
      merged[key] = key in merged ? deepMerge(merged[key], value) : stripNulls(value);
    }
  }
  return merged;
}

type NamedItem = PlainObject & { name: string };

function isNamedList(list: unknown[]): list is NamedItem[] {
  return list.every((item) => isPlainObject(item) && typeof item.name === 'string');
}

/** mergeNamedLists keeps the base order, merges items with the same name, appends new ones. */
function mergeNamedLists(base: NamedItem[], patch: NamedItem[]): NamedItem[] {
  const merged = base.map((item) => {
    const match = patch.find((candidate) => candidate.name === item.name);
    return match ? (deepMerge(item, match) as NamedItem) : structuredClone(item);
  });
  const added = patch.filter((item) => !base.some((existing) => existing.name === item.name));
  return [...merged, ...added.map((item) => stripNulls(item) as NamedItem)];
}

/** stripNulls removes null fields from a value that had nothing to delete them from. */
function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => stripNulls(item));
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value).filter(([, field]) => field !== null);
    return Object.fromEntries(entries.map(([key, field]) => [key, stripNulls(field)]));
  }
  return value;
}
