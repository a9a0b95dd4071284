import { groupOf } from '@tidemark/contracts';
import type { Health, KubernetesManifest } from '../kind-plugin';
import { genericHealth } from './generic-health';
import type { HealthRule } from './health-rule';
import { builtinHealthRules } from './health-rules';

/**
 * healthOf says whether a live object is Ready, Progressing or Failed, with a message a user
 * can act on. It uses the rule for the object's group and kind, else the generic rule.
 */
export function healthOf(live: KubernetesManifest, rules: readonly HealthRule[] = builtinHealthRules): Health {
  const group = groupOf(live.apiVersion);
  const rule = rules.find((candidate) => candidate.group === group && candidate.kind === live.kind);
  return rule ? rule.evaluate(live) : genericHealth(live);
}
