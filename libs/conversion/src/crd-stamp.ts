import { createHash } from 'node:crypto';
import type { KubernetesManifest } from '@tidemark/contracts';

/**
 * The annotation a built-in CRD carries once installed: the hash of what was applied and the
 * generation it got, `<hash>@<generation>`. A start that finds it matching skips the apply.
 */
export const crdStampAnnotation = 'tidemark.dev/installed-crd';

/** crdHash is the hash of the CRD Tidemark would apply (conversion webhook and CA included). */
export function crdHash(crd: KubernetesManifest): string {
  return createHash('sha256').update(JSON.stringify(crd)).digest('hex').slice(0, 32);
}

/**
 * crdStampManager writes the stamp, and only it: the CRD itself is applied as the installer's
 * manager, by the reconciler and by `tidemark install` alike, and neither apply carries the stamp,
 * so neither takes it away (an install that re-applies the CRDs finds them unchanged).
 */
export const crdStampManager = 'tidemark-crd-stamp';

/** crdStamp is the apply that sets a CRD's stamp: its name and the one annotation. */
export function crdStamp(name: string, hash: string, generation: number): KubernetesManifest {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name, annotations: { [crdStampAnnotation]: `${hash}@${generation}` } } };
}

/**
 * installedAsStamped: the live CRD is what Tidemark applied and nobody changed since, so it need not
 * be applied (nor awaited) again. Its stamp names this hash at its current generation (a change to
 * the spec, by hand too, raises the generation), it carries every label and annotation Tidemark's
 * has, and it is Established.
 */
export function installedAsStamped(live: KubernetesManifest, desired: KubernetesManifest, hash: string): boolean {
  if (live.metadata.annotations?.[crdStampAnnotation] !== `${hash}@${live.metadata.generation ?? 'none'}`) return false;
  const carries = (wanted: Record<string, string> | undefined, found: Record<string, string> | undefined) => Object.entries(wanted ?? {}).every(([key, value]) => found?.[key] === value);
  if (!carries(desired.metadata.labels, live.metadata.labels) || !carries(desired.metadata.annotations, live.metadata.annotations)) return false;
  const conditions = (live.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((condition) => condition.type === 'Established' && condition.status === 'True');
}
