import type { KubernetesManifest, ManagedFieldsEntry } from '@tidemark/contracts';

type FieldsV1 = { [member: string]: FieldsV1 };

/**
 * trimManagedFields keeps of an object's managedFields what Tidemark reads of them, and drops the
 * rest (most of a Deployment's: the controller's status, the scheduler's annotations):
 * - the entries of its own managers, whole (the ownership guard reads its Apply entry, drift its field set);
 * - of every other manager's entry, its header (manager, operation, subresource, time) and the part
 *   of its field set that overlaps what Tidemark's managers own, so drift still names who last
 *   wrote each field Tidemark owns, and who touched the object last.
 * It returns the object itself when there is nothing to drop, else a shallow copy.
 */
export function trimManagedFields(object: KubernetesManifest, ownManagers: ReadonlySet<string>): KubernetesManifest {
  const entries = object.metadata.managedFields;
  if (!Array.isArray(entries)) return object;
  const typed = entries as ManagedFieldsEntry[];
  const own = typed.filter((entry) => ownManagers.has(entry.manager ?? ''));
  const owned = own.reduce<FieldsV1>((union, entry) => mergeFields(union, fieldsOf(entry)), {});
  let changed = false;
  const trimmed = typed.map((entry) => {
    if (ownManagers.has(entry.manager ?? '')) return entry;
    const fields = intersectFields(fieldsOf(entry), owned);
    if (sameSize(fields, fieldsOf(entry))) return entry;
    changed = true;
    return { ...entry, fieldsV1: fields };
  });
  return changed ? { ...object, metadata: { ...object.metadata, managedFields: trimmed } } : object;
}

function fieldsOf(entry: ManagedFieldsEntry): FieldsV1 {
  const fields = entry.fieldsV1;
  return fields !== null && typeof fields === 'object' && !Array.isArray(fields) ? (fields as FieldsV1) : {};
}

/**
 * intersectFields is the part of field set `a` that `b` also holds. A member both hold whole (`{}`,
 * a leaf) or that one holds whole is kept as `a` has it, cut to `{}` when `b` holds it whole; a
 * member whose children do not overlap is left out, since `{}` there would read as owning all of it.
 */
function intersectFields(a: FieldsV1, b: FieldsV1): FieldsV1 {
  const kept: FieldsV1 = {};
  for (const [member, child] of Object.entries(a)) {
    const other = b[member];
    if (other === undefined) continue;
    if (isLeaf(child) || isLeaf(other)) {
      kept[member] = isLeaf(other) ? {} : child;
      continue;
    }
    const inner = intersectFields(child, other);
    if (!isLeaf(inner)) kept[member] = inner;
  }
  return kept;
}

/** mergeFields is the union of two field sets; a member either holds whole stays whole. */
function mergeFields(a: FieldsV1, b: FieldsV1): FieldsV1 {
  const merged: FieldsV1 = { ...a };
  for (const [member, child] of Object.entries(b)) {
    const mine = merged[member];
    merged[member] = mine === undefined ? child : isLeaf(mine) || isLeaf(child) ? {} : mergeFields(mine, child);
  }
  return merged;
}

function isLeaf(fields: FieldsV1 | undefined): boolean {
  return fields === undefined || Object.keys(fields).length === 0;
}

/** sameSize: intersecting only removes, so an equal count of members at every level means nothing went. */
function sameSize(trimmed: FieldsV1, original: FieldsV1): boolean {
  return countMembers(trimmed) === countMembers(original);
}

function countMembers(fields: FieldsV1): number {
  let count = 0;
  for (const child of Object.values(fields)) count += 1 + countMembers(child ?? {});
  return count;
}

/** Objects a watch cache answered with trimmed managedFields (the cache's copies, never a caller's own object). */
const trimmedCopies = new WeakSet<object>();

/** markTrimmed notes that `object` (a cache's copy) has trimmed managedFields; it returns it. */
export function markTrimmed<T extends object>(object: T): T {
  trimmedCopies.add(object);
  return object;
}

/** isTrimmed tells whether `object` came from a watch cache with other managers' field sets trimmed. */
export function isTrimmed(object: object | undefined): boolean {
  return object !== undefined && trimmedCopies.has(object);
}
