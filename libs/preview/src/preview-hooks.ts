import { hookPhases, parseHook, parseObjectKey, type KubernetesManifest, type PreviewHook } from '@tidemark/contracts';

/**
 * previewHook describes one hook a preview lists, or undefined for an object that is no hook.
 * A hook is listed, never dry-run: what it creates is a run under a name of its own.
 */
export function previewHook(cluster: string, objectKey: string, object: KubernetesManifest, path: string | undefined): PreviewHook | undefined {
  const reading = parseHook(object);
  if (!reading.hook && !reading.skipped && !reading.problem) return undefined;
  const ref = parseObjectKey(objectKey);
  const base = { cluster, objectKey, ...(path ? { path } : {}), kind: object.kind, namespace: object.metadata.namespace ?? (ref.namespace === '_' ? '' : ref.namespace), name: object.metadata.name };
  if (reading.hook) return { ...base, phase: reading.hook.phase, weight: reading.hook.weight, deletePolicies: reading.hook.deletePolicies };
  return { ...base, phase: 'pre-apply', weight: 0, deletePolicies: [], note: reading.skipped ?? `not run: ${reading.problem}` };
}

/** inRunOrder sorts hooks as they run: by cluster, phase, weight, then name. */
export function inRunOrder(hooks: readonly PreviewHook[]): PreviewHook[] {
  return [...hooks].sort((a, b) => a.cluster.localeCompare(b.cluster) || hookPhases.indexOf(a.phase) - hookPhases.indexOf(b.phase)
    || a.weight - b.weight || a.objectKey.localeCompare(b.objectKey));
}

/** describeHook is one hook as a line: `pre-apply (weight -5) Job shop/schema`, with its note. */
export function describeHook(hook: PreviewHook): string {
  const subject = `${hook.kind} ${hook.namespace ? `${hook.namespace}/` : ''}${hook.name}`;
  return hook.note ? `${subject}: ${hook.note}` : `${hook.phase} (weight ${hook.weight}) ${subject}`;
}
