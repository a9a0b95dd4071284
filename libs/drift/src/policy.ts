import type { KubernetesManifest } from '@tidemark/contracts';
import type { DriftRules } from './compute-drift';

/** heal re-applies Git over a drifted field; report leaves it and says so. */
export type DriftPolicy = 'heal' | 'report';

/** Annotation choosing an object's policy: `heal` or `report`. */
export const driftPolicyAnnotation = 'tidemark.dev/drift';
/** Annotation listing JSON pointers that are never drift, comma separated. */
export const driftIgnoreAnnotation = 'tidemark.dev/drift-ignore';

/** driftPolicyOf: the object's annotation wins over the kind's default, which wins over `heal`. */
export function driftPolicyOf(object: KubernetesManifest, kindDefaults: Readonly<Record<string, DriftPolicy>> = {}): DriftPolicy {
  const annotated = object.metadata.annotations?.[driftPolicyAnnotation];
  if (annotated === 'heal' || annotated === 'report') return annotated;
  return kindDefaults[object.kind] ?? 'heal';
}

/** driftRulesOf adds the object's own ignore annotation to the configured rules. */
export function driftRulesOf(object: KubernetesManifest, base: DriftRules = {}): DriftRules {
  const own = (object.metadata.annotations?.[driftIgnoreAnnotation] ?? '').split(',').map((pointer) => pointer.trim()).filter(Boolean);
  return { ignorePointers: [...(base.ignorePointers ?? []), ...own], ignoreManagers: base.ignoreManagers ?? [] };
}
