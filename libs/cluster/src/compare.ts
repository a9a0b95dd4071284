import { stableStringify, type KubernetesManifest } from '@tidemark/contracts';

/**
 * sameObject tells whether a server-side-apply dry-run result equals the live object, so the
 * apply would change nothing. managedFields timestamps are ignored: only values and ownership count.
 */
export function sameObject(dryRun: KubernetesManifest, live: KubernetesManifest): boolean {
  return stableStringify(normalize(dryRun)) === stableStringify(normalize(live));
}

function normalize(object: KubernetesManifest): unknown {
  const managedFields = Array.isArray(object.metadata.managedFields)
    ? (object.metadata.managedFields as Record<string, unknown>[]).map(({ time: _time, ...entry }) => entry)
    : undefined;
  return { ...object, metadata: { ...object.metadata, managedFields } };
}
