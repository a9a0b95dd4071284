import { describeObject, groupOf, healthRuleApiVersion, healthRuleKind, type KubernetesManifest } from '@tidemark/contracts';
import type { HealthRule } from '../health-rule';
import { compileHealthRule, HealthRuleError, type HealthExpressions } from './cel-health-rule';

/** HealthRuleObject is one HealthRule object as a source's Git declares it, with the file it is in. */
export interface HealthRuleObject {
  object: KubernetesManifest;
  path: string;
}

/** RefusedHealthRule is a HealthRule object that does not compile: its kind (when readable) and why, naming the file, object and field. */
export interface RefusedHealthRule {
  group?: string;
  kind?: string;
  message: string;
}

/** SourceHealthRules are the rules a source's HealthRule objects declare at one revision, and the ones refused. */
export interface SourceHealthRules {
  rules: HealthRule[];
  refused: RefusedHealthRule[];
}

/**
 * compileHealthRuleObjects compiles a source's HealthRule objects (spec: apiVersion, kind, current,
 * inProgress, failed). A broken one is refused on its own, naming its file, the object and the
 * field; the others stand. A second rule for a kind is refused, naming the first.
 */
export function compileHealthRuleObjects(objects: readonly HealthRuleObject[]): SourceHealthRules {
  const result: SourceHealthRules = { rules: [], refused: [] };
  for (const { object, path } of objects) {
    if (object.apiVersion !== healthRuleApiVersion || object.kind !== healthRuleKind) continue;
    const where = `${path}: ${describeObject({ kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name })} spec`;
    const spec = (object as { spec?: unknown }).spec;
    const declared = spec && typeof spec === 'object' ? (spec as Partial<HealthExpressions>) : {};
    const target = typeof declared.apiVersion === 'string' && typeof declared.kind === 'string' ? { group: groupOf(declared.apiVersion), kind: declared.kind } : {};
    try {
      const rule = compileHealthRule(declared as HealthExpressions, where);
      const twin = result.rules.find((known) => known.group === rule.group && known.kind === rule.kind);
      if (twin) throw new HealthRuleError(`${where}: ${rule.kind} already has a health rule in this source (${twin.declaredIn ?? 'another HealthRule'}); keep one`);
      result.rules.push(rule);
    } catch (error) {
      if (!(error instanceof HealthRuleError)) throw error;
      result.refused.push({ ...target, message: error.message });
    }
  }
  return result;
}
