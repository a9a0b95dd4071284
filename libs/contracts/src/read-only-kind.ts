import { healthRuleGroup, healthRuleKind } from './health-rule-object';

// The kinds a source's Git holds for Tidemark itself: Placement (where objects go) and HealthRule
// (how they are judged). A new kind of that sort goes here, and routing and previews skip it alike.
const readOnlyKeyPrefixes = ['tidemark.dev/Placement/', `${healthRuleGroup}/${healthRuleKind}/`];

/**
 * isReadOnlyKey tells the key of an object Tidemark reads from Git but never applies (any
 * namespace): such an object gets no reconcile job, no preview dry-run and no diff row.
 */
export function isReadOnlyKey(objectKey: string): boolean {
  return readOnlyKeyPrefixes.some((prefix) => objectKey.startsWith(prefix));
}
