import { isRedactedObject, newestFirst, redactedText, stableStringify, type DriftItem, type KubernetesManifest, type ManagedFieldsEntry } from '@tidemark/contracts';
import { leafPaths, ownsPath, type FieldPath } from './field-set';
import { resolvePath, toPointer } from './resolve-path';

/** DriftRules say what does not count as drift. */
export interface DriftRules {
  /** JSON pointers (and everything under them) that are never drift. */
  ignorePointers?: readonly string[];
  /** Field managers whose writes are never drift (e.g. a mutating webhook's manager). */
  ignoreManagers?: readonly string[];
}

export interface DriftInput {
  /** The server-side-apply dry-run of the desired object: what the object would be. */
  desired: KubernetesManifest;
  /** The live object; undefined when it is gone. */
  live: KubernetesManifest | undefined;
  /** Tidemark's field manager: only the fields it owns can drift. */
  fieldManager: string;
  rules?: DriftRules;
  now: Date;
}

/**
 * computeDrift compares the dry-run of the desired object with the live one, field by field,
 * over the fields Tidemark's manager owns. Server defaults are equal on both sides and fields
 * other managers own are not Tidemark's, so neither is ever drift. Each item names the manager
 * that last wrote the live value. Secret values, and the values of an object annotated
 * `tidemark.dev/redact: "true"`, are never copied: only that they changed.
 */
export function computeDrift(input: DriftInput): DriftItem[] {
  const { desired, live, now } = input;
  const detectedAt = now.toISOString();
  if (!live) return [{ path: '/', desired: 'present', live: 'deleted', manager: 'unknown', detectedAt }];
  const ours = managedEntries(desired).find((entry) => entry.manager === input.fieldManager && entry.operation === 'Apply' && !entry.subresource);
  if (!ours) return [];
  // A Secret's data, and every value of an object that opts into redaction, stay in the cluster.
  const secret = desired.kind === 'Secret' && desired.apiVersion === 'v1';
  const optedIn = isRedactedObject(desired) && !secret;
  const items: DriftItem[] = [];
  for (const path of comparedPaths(leafPaths(ours.fieldsV1), secret)) {
    const wanted = resolvePath(desired, path);
    const actual = resolvePath(live, path);
    if (stableStringify(wanted) === stableStringify(actual)) continue;
    const pointer = toPointer(path);
    if (isIgnoredPointer(pointer, input.rules)) continue;
    const manager = writerOf(live, path, input.fieldManager);
    if (input.rules?.ignoreManagers?.includes(manager)) continue;
    const hidden = (secret && isSecretData(path)) || optedIn;
    items.push({ path: pointer, ...(hidden ? hiddenValues(actual) : { desired: wanted, live: actual }), manager, detectedAt });
  }
  return items;
}

/**
 * comparedPaths: a Secret applied through stringData is owned as stringData but stored (and
 * dry-run) as data, so stringData paths are compared at their data key; otherwise a hand edit
 * of such a Secret's value would never be seen.
 */
function comparedPaths(paths: FieldPath[], secret: boolean): FieldPath[] {
  if (!secret) return paths;
  const seen = new Set<string>();
  const compared: FieldPath[] = [];
  for (const path of paths) {
    const [first, ...rest] = path;
    const mapped: FieldPath = first?.kind === 'field' && first.name === 'stringData' ? [{ kind: 'field', name: 'data' }, ...rest] : path;
    const pointer = toPointer(mapped);
    if (seen.has(pointer)) continue;
    seen.add(pointer);
    compared.push(mapped);
  }
  return compared;
}

/** hiddenValues says only that a value changed or went, never what it was. */
function hiddenValues(actual: unknown): { desired: string; live: string } {
  return { desired: redactedText, live: actual === undefined ? 'removed' : 'changed' };
}

/**
 * writerOf finds the manager whose field set holds the path in the live object, newest first.
 * When only Tidemark's own apply holds it, the live value is Tidemark's last apply and the
 * difference is on the desired side (a new revision, as a preview sees it): no other manager
 * wrote it, so it is named as ours, never as whoever last touched some other field.
 */
function writerOf(live: KubernetesManifest, path: FieldPath, ourManager: string): string {
  // Subresource entries count: `kubectl scale` writes spec.replicas through /scale.
  const all = newestFirst(live.metadata.managedFields);
  const entries = all.filter((entry) => entry.manager !== ourManager);
  const owner = entries.find((entry) => ownsPath(entry.fieldsV1, path));
  if (owner?.manager) return owner.manager;
  if (all.some((entry) => entry.manager === ourManager && ownsPath(entry.fieldsV1, path))) return ourManager;
  // Nobody owns the value: it was removed, by whoever touched the object last.
  return entries[0]?.manager ?? 'unknown';
}

function managedEntries(object: KubernetesManifest): ManagedFieldsEntry[] {
  const entries = object.metadata.managedFields;
  return Array.isArray(entries) ? (entries as ManagedFieldsEntry[]) : [];
}

function isIgnoredPointer(pointer: string, rules: DriftRules | undefined): boolean {
  return (rules?.ignorePointers ?? []).some((prefix) => pointer === prefix || pointer.startsWith(`${prefix.replace(/\/$/, '')}/`));
}

function isSecretData(path: FieldPath): boolean {
  const first = path[0];
  return first?.kind === 'field' && (first.name === 'data' || first.name === 'stringData');
}
