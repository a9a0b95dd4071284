import { SelectorError } from './label-selector';

/** RuleServiceAccount is the identity a Placement rule's objects are applied with, in the target cluster. */
export interface RuleServiceAccount {
  readonly namespace: string;
  readonly name: string;
}

/** PlacedIdentity is the ServiceAccount a rule names, with the rule (`Placement <name> spec.rules[i]`) for messages. */
export interface PlacedIdentity {
  readonly rule: string;
  readonly serviceAccount: RuleServiceAccount;
}

const dnsLabel = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const serviceAccountName = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;

/**
 * compileRuleIdentity checks a rule's optional `serviceAccount: {namespace, name}`, written as a
 * source's is. Errors name the field (`where` is the rule).
 */
export function compileRuleIdentity(value: unknown, where: string): RuleServiceAccount | undefined {
  if (value === undefined) return undefined;
  const field = `${where}.serviceAccount`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SelectorError(`${field}: must be a mapping with namespace and name`);
  const { namespace, name, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw new SelectorError(`${field}: unknown field "${extra[0]}" (only namespace and name)`);
  if (typeof namespace !== 'string' || !dnsLabel.test(namespace)) throw new SelectorError(`${field}.namespace: must be a namespace name (lower-case letters, digits, '-')`);
  if (typeof name !== 'string' || !serviceAccountName.test(name)) throw new SelectorError(`${field}.name: must be a ServiceAccount name (lower-case letters, digits, '-', '.')`);
  return Object.freeze({ namespace, name });
}
