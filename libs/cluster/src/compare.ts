import { stableStringify, type KubernetesManifest } from '@tidemark/contracts';
import { trimManagedFields } from './trim-managed-fields';

/**
 * sameObject tells whether a server-side-apply dry-run result equals the live object, so the
 * apply would change nothing. managedFields timestamps are ignored: only values and ownership count.
 * With `fieldManager`, other managers' field sets count only where they overlap what it owns
 * (trimManagedFields), as a watch cache holds them: an apply changes no other field of theirs.
 */
export function sameObject(dryRun: KubernetesManifest, live: KubernetesManifest, fieldManager?: string): boolean {
  const trim = fieldManager === undefined ? (object: KubernetesManifest) => object : (object: KubernetesManifest) => trimManagedFields(object, new Set([fieldManager]));
  return stableStringify(normalize(trim(dryRun))) === stableStringify(normalize(trim(live)));
}

function normalize(object: KubernetesManifest): unknown {
  // The order of the entries means nothing: an apply by one of two managers of the same values moves its entry last.
  const managedFields = Array.isArray(object.metadata.managedFields)
    ? (object.metadata.managedFields as Record<string, unknown>[]).map(({ time: _time, ...entry }) => entry)
      .sort((a, b) => managerKey(a).localeCompare(managerKey(b)))
    : undefined;
  return { ...object, metadata: { ...object.metadata, managedFields } };
}

function managerKey(entry: Record<string, unknown>): string {
  return `${String(entry.manager)}\u0000${String(entry.operation)}\u0000${String(entry.subresource ?? '')}`;
}
