/** The HealthRule kind: CEL health rules for one kind, read from a source's Git, never applied. */
export const healthRuleGroup = 'tidemark.dev';
export const healthRuleApiVersion = `${healthRuleGroup}/v1alpha1`;
export const healthRuleKind = 'HealthRule';

const healthRuleKeyPrefix = `${healthRuleGroup}/${healthRuleKind}/`;

/** isHealthRuleKey tells a HealthRule object's key from the objects to apply (any namespace). */
export function isHealthRuleKey(objectKey: string): boolean {
  return objectKey.startsWith(healthRuleKeyPrefix);
}
