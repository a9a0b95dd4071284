import { parseRolloutPolicy, RolloutPolicyError, type RolloutPolicy } from './rollout-policy';
/** RolloutsContext is what checking the rollouts section needs from the rest of the file. */
export interface RolloutsContext {
  /** The config file's source names. */
  sources: readonly string[];
  /** Source objects are served, so a rollout may name a source that is not in the file. */
  sourceObjects: boolean;
  invalid(field: string, message: string): Error;
}

/**
 * rolloutsConfig reads the `rollouts` section: one policy per source (parseRolloutPolicy), each
 * naming a source of the file (or any, when Source objects are served), no source twice.
 */
export function rolloutsConfig(input: readonly unknown[] | undefined, context: RolloutsContext): RolloutPolicy[] {
  const policies: RolloutPolicy[] = [];
  const seen = new Set<string>();
  (input ?? []).forEach((entry, index) => {
    const field = `rollouts[${index}]`;
    let policy: RolloutPolicy;
    try {
      policy = parseRolloutPolicy(entry, field);
    } catch (error) {
      // Its message starts with the field it names (rollouts[0].waves[1].soakMs: ...).
      if (error instanceof RolloutPolicyError) {
        const split = error.message.indexOf(': ');
        throw context.invalid(error.message.slice(0, split), error.message.slice(split + 2));
      }
      throw error;
    }
    if (!context.sourceObjects && !context.sources.includes(policy.source)) throw context.invalid(`${field}.source`, `no source is named "${policy.source}"`);
    if (seen.has(policy.source)) throw context.invalid(`${field}.source`, `source "${policy.source}" has a rollout already; give each source one`);
    seen.add(policy.source);
    policies.push(policy);
  });
  return policies;
}
