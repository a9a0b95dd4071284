import type { KubernetesManifest } from '@tidemark/contracts';

/**
 * Annotation by which an object asks that its values never leave the cluster in drift items
 * ("true"): only that a field changed is recorded, as for a Secret's data.
 */
export const redactAnnotation = 'tidemark.dev/redact';

/** isRedacted: a v1 Secret always is; any other object when it opts in by annotation. */
export function isRedacted(object: KubernetesManifest): boolean {
  if (object.kind === 'Secret' && object.apiVersion === 'v1') return true;
  return object.metadata.annotations?.[redactAnnotation] === 'true';
}
