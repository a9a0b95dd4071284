import type { HealthRule } from '../health-rule';
import { builtinHealthRules } from '../health-rules';

/** withHealthRules puts a user's rules before the built-in ones, so a user's rule for a kind wins. */
export function withHealthRules(rules: readonly HealthRule[]): readonly HealthRule[] {
  return rules.length === 0 ? builtinHealthRules : [...rules, ...builtinHealthRules];
}
