import type { KubernetesManifest } from '@tidemark/contracts';

/**
 * sameObject tells whether a server-side-apply dry-run result equals the live object, so the
 * apply would change nothing. managedFields timestamps are ignored: only values and ownership count.
 */
export function sameObject(dryRun: KubernetesManifest, live: KubernetesManifest): boolean {
  return canonical(normalize(dryRun)) === canonical(normalize(live));
}

function normalize(object: KubernetesManifest): unknown {
  const managedFields = Array.isArray(object.metadata.managedFields)
    ? (object.metadata.managedFields as Record<string, unknown>[]).map(({ time: _time, ...entry }) => entry)
    : undefined;
  return { ...object, metadata: { ...object.metadata, managedFields } };
}

/** canonical is JSON with sorted keys, so key order never makes two equal objects differ. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
      return Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return inner;
  });
}
