import { groupOf, type KubernetesManifest } from '@tidemark/contracts';
import type { HealthRule } from '../health-rule';
import type { RefusedHealthRule, SourceHealthRules } from './health-rule-object';

/** RunHealthRules are the rules one source's objects are judged by, and what to tell a user about a kind's rule. */
export interface RunHealthRules {
  rules: readonly HealthRule[];
  /** noteFor says, for an object whose kind has a refused or overruled HealthRule, what judged it instead. */
  noteFor(object: KubernetesManifest): string | undefined;
}

const kindKey = (group: string, kind: string) => `${group}/${kind}`;
const find = (rules: readonly HealthRule[], group: string, kind: string) => rules.find((rule) => rule.group === group && rule.kind === kind);

/**
 * withSourceHealthRules puts a source's HealthRule objects between the operator's rules
 * (`configured`: tidemark.yaml's, then the built-in ones, as withHealthRules gives them) and the
 * built-in ones: the config wins for a kind it names, a HealthRule beats a built-in rule. They are
 * this source's only: another source's objects never see them.
 */
export function withSourceHealthRules(configured: readonly HealthRule[], fromGit: SourceHealthRules | undefined): RunHealthRules {
  if (!fromGit || (fromGit.rules.length === 0 && fromGit.refused.length === 0)) return { rules: configured, noteFor: () => undefined };
  const operators = configured.filter((rule) => rule.declaredIn !== undefined);
  const notes = new Map<string, string>();
  const kept: HealthRule[] = [];
  for (const rule of fromGit.rules) {
    const operator = find(operators, rule.group, rule.kind);
    if (operator) notes.set(kindKey(rule.group, rule.kind), `${rule.declaredIn ?? 'A HealthRule'} is not used: ${operator.declaredIn ?? 'the reconciler\'s rule'} judges ${rule.kind}, and the operator's config wins.`);
    else kept.push(rule);
  }
  const rules = kept.length === 0 ? configured : [...kept, ...configured];
  for (const refused of fromGit.refused) {
    if (refused.kind !== undefined) notes.set(kindKey(refused.group ?? '', refused.kind), refusedNote(refused, rules));
  }
  return { rules, noteFor: (object) => notes.get(kindKey(groupOf(object.apiVersion), object.kind)) };
}

/** refusedNote says a kind's HealthRule was refused, why, and which rule judges its objects instead. */
function refusedNote(refused: RefusedHealthRule, rules: readonly HealthRule[]): string {
  const instead = find(rules, refused.group ?? '', refused.kind ?? '');
  const by = instead?.declaredIn ?? (instead ? 'its built-in rule' : 'the generic rule (kstatus)');
  return `Its HealthRule was refused (${refused.message}); it is judged by ${by} instead.`;
}
