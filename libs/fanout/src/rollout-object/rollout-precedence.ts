import { RolloutPolicyError, type RolloutPolicy, type WavePolicy } from '../rollout-policy';
import type { GitRollout } from './parse-rollout-object';

/**
 * effectivePolicy is the policy a source rolls out by when tidemark.yaml and its Git may both say
 * one. The operator's file caps a tenant: a Git Rollout can add gates and slow down, never lift
 * one. Alone, either applies as written (without a policy every cluster gets a revision at once,
 * so a Git Rollout alone can only slow that down). Together:
 * - every wave of the operator's stays, in its order, with its clusters: a Git wave of the same
 *   name that selects other clusters is an error, not a silent change;
 * - on such a wave, what the Git wave says can only tighten: approval is added, the longer soak
 *   and the shorter gate timeout win, and maxParallel the smaller (a count and a percentage are
 *   not compared: the operator's holds);
 * - a Git wave of a new name follows the operator's waves, so it only takes clusters that none of
 *   the operator's waves selects (which would otherwise join the operator's last wave);
 * - `manualSync: true` in Git puts an approval on the operator's first wave.
 */
export function effectivePolicy(operator: RolloutPolicy | undefined, git: GitRollout | undefined): RolloutPolicy | undefined {
  if (!git) return operator;
  if (!operator) return git.policy;
  const gitWaves = git.spec.waves ?? [];
  const waves: WavePolicy[] = operator.waves.map((wave, index) => {
    const at = gitWaves.findIndex((candidate) => candidate.name === wave.name);
    const tightened = at === -1 ? { ...wave } : tighten(wave, git, at);
    return index === 0 && git.spec.manualSync === true ? { ...tightened, approval: true } : tightened;
  });
  const operatorNames = new Set(operator.waves.map((wave) => wave.name));
  for (const wave of git.policy.waves) if (!operatorNames.has(wave.name) && git.spec.manualSync !== true) waves.push(wave);
  return { source: operator.source, waves };
}

function tighten(wave: WavePolicy, git: GitRollout, at: number): WavePolicy {
  const written = git.spec.waves![at]!;
  const parsed = git.policy.waves[at]!;
  if (written.clusterSelector !== undefined && JSON.stringify(parsed.selector) !== JSON.stringify(wave.selector)) {
    throw new RolloutPolicyError(`${git.where} spec.waves[${at}].clusterSelector: wave ${wave.name} is the operator's (tidemark.yaml rollouts), and its clusters are chosen there; leave clusterSelector out to add to that wave, or name a new wave`);
  }
  return {
    ...wave,
    approval: wave.approval || parsed.approval,
    soakMs: written.soakMs === undefined ? wave.soakMs : Math.max(wave.soakMs, parsed.soakMs),
    gateTimeoutMs: written.gateTimeoutMs === undefined ? wave.gateTimeoutMs : Math.min(wave.gateTimeoutMs, parsed.gateTimeoutMs),
    maxParallel: written.maxParallel === undefined ? wave.maxParallel : smaller(wave.maxParallel, parsed.maxParallel),
  };
}

function smaller(operator: WavePolicy['maxParallel'], git: WavePolicy['maxParallel']): WavePolicy['maxParallel'] {
  if ('count' in operator && 'count' in git) return { count: Math.min(operator.count, git.count) };
  if ('percent' in operator && 'percent' in git) return { percent: Math.min(operator.percent, git.percent) };
  return operator;
}
