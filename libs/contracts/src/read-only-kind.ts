import { healthRuleGroup, healthRuleKind } from './health-rule-object';

// The kinds a source's Git holds for Tidemark itself: Placement (where objects go), HealthRule
// (how they are judged) and Rollout (in which waves a revision goes out). A new kind of that sort goes here, and routing and previews skip it alike.
const readOnlyKeyPrefixes = ['tidemark.dev/Placement/', `${healthRuleGroup}/${healthRuleKind}/`, 'tidemark.dev/Rollout/'];

/**
 * isReadOnlyKey tells the key of an object Tidemark reads from Git but never applies (any
 * namespace): such an object gets no reconcile job, no preview dry-run and no diff row.
 */
export function isReadOnlyKey(objectKey: string): boolean {
  return readOnlyKeyPrefixes.some((prefix) => objectKey.startsWith(prefix));
}
