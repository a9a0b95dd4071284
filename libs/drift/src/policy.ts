import type { KubernetesManifest } from '@tidemark/contracts';
import type { DriftRules } from './compute-drift';

/**
 * heal re-applies Git over a drifted field; report leaves it and says so; prevent heals and also
 * has the API server refuse edits made outside Git (prevention.ts).
 */
export type DriftPolicy = 'heal' | 'report' | 'prevent';

/** Annotation choosing an object's policy: `heal`, `report` or `prevent`. */
export const driftPolicyAnnotation = 'tidemark.dev/drift';
/** Annotation listing JSON pointers that are never drift, comma separated. */
export const driftIgnoreAnnotation = 'tidemark.dev/drift-ignore';

/**
 * driftPolicyOf: the object's annotation wins over the kind's default, which wins over the
 * source's default, which wins over `heal`.
 */
export function driftPolicyOf(object: KubernetesManifest, kindDefaults: Readonly<Record<string, DriftPolicy>> = {}, sourceDefault?: DriftPolicy): DriftPolicy {
  const annotated = object.metadata.annotations?.[driftPolicyAnnotation];
  if (annotated === 'heal' || annotated === 'report' || annotated === 'prevent') return annotated;
  return kindDefaults[object.kind] ?? sourceDefault ?? 'heal';
}

/** driftRulesOf adds the object's own ignore annotation to the configured rules. */
export function driftRulesOf(object: KubernetesManifest, base: DriftRules = {}): DriftRules {
  const own = (object.metadata.annotations?.[driftIgnoreAnnotation] ?? '').split(',').map((pointer) => pointer.trim()).filter(Boolean);
  return { ignorePointers: [...(base.ignorePointers ?? []), ...own], ignoreManagers: base.ignoreManagers ?? [] };
}
