import { matches, requirementsOf, SelectorError, type ClusterTarget, type LabelSelector, type Requirement } from '@tidemark/placement';

/** WavePolicy is one wave of a rollout: which clusters, how many at once, and what it waits for. */
export interface WavePolicy {
  name: string;
  selector: readonly Requirement[];
  /** How many of the wave's clusters are applied at once: a count, or a percentage of the wave (rounded up, at least one). */
  maxParallel: { count: number } | { percent: number };
  /** How long a batch's objects may take to be Ready at the new revision before the rollout halts. */
  gateTimeoutMs: number;
  /** How long a passed wave is watched before the next one starts. */
  soakMs: number;
  /** The wave waits for an operator (promote or sync) before its first cluster is reached. */
  approval: boolean;
}

/** RolloutPolicy is a source's ordered waves (a manual sync is one wave of every cluster with an approval). */
export interface RolloutPolicy {
  source: string;
  waves: readonly WavePolicy[];
}

/** The defaults a wave gets for what it does not say. */
export const rolloutDefaults = { gateTimeoutMs: 600_000, soakMs: 0, maxParallel: { percent: 100 } } as const;

/** RolloutPolicyError is a policy that cannot be read; its message names the field. */
export class RolloutPolicyError extends Error {
  readonly code = 'RolloutPolicyInvalid';
}

const maxWaves = 20;
const maxDurationMs = 7 * 86_400_000;
const namePattern = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * parseRolloutPolicy reads one `rollouts` entry of tidemark.yaml (`where` names it in errors):
 * `source`, and either `manualSync: true` (every new revision waits for an operator's sync) or
 * `waves`, each with `name`, `clusterSelector` (a label selector; empty selects every cluster),
 * `maxParallel` (a count or "N%"), `gateTimeoutMs`, `soakMs` and `approval`.
 */
export function parseRolloutPolicy(input: unknown, where: string): RolloutPolicy {
  if (!isObject(input)) throw new RolloutPolicyError(`${where}: must be an object with source and waves (or manualSync: true)`);
  const known = new Set(['source', 'waves', 'manualSync']);
  for (const field of Object.keys(input)) if (!known.has(field)) throw new RolloutPolicyError(`${where}.${field}: unknown field; a rollout has source, waves and manualSync`);
  if (typeof input.source !== 'string' || input.source.length === 0) throw new RolloutPolicyError(`${where}.source: name the source the rollout is for`);
  if (input.manualSync !== undefined && typeof input.manualSync !== 'boolean') throw new RolloutPolicyError(`${where}.manualSync: must be true or false`);
  if (input.manualSync === true) {
    if (input.waves !== undefined) throw new RolloutPolicyError(`${where}: set manualSync or waves, not both (a manual sync is one wave of every cluster with an approval)`);
    return { source: input.source, waves: [{ name: 'sync', selector: [], maxParallel: rolloutDefaults.maxParallel, gateTimeoutMs: rolloutDefaults.gateTimeoutMs, soakMs: 0, approval: true }] };
  }
  if (!Array.isArray(input.waves) || input.waves.length === 0) throw new RolloutPolicyError(`${where}.waves: list at least one wave`);
  if (input.waves.length > maxWaves) throw new RolloutPolicyError(`${where}.waves: at most ${maxWaves} waves`);
  const waves = input.waves.map((wave, index) => parseWave(wave, `${where}.waves[${index}]`));
  const names = new Set<string>();
  waves.forEach((wave, index) => {
    if (names.has(wave.name)) throw new RolloutPolicyError(`${where}.waves[${index}].name: "${wave.name}" names two waves`);
    names.add(wave.name);
  });
  return { source: input.source, waves };
}

function parseWave(input: unknown, where: string): WavePolicy {
  if (!isObject(input)) throw new RolloutPolicyError(`${where}: must be an object with a name`);
  const known = new Set(['name', 'clusterSelector', 'maxParallel', 'gateTimeoutMs', 'soakMs', 'approval']);
  for (const field of Object.keys(input)) if (!known.has(field)) throw new RolloutPolicyError(`${where}.${field}: unknown field; a wave has name, clusterSelector, maxParallel, gateTimeoutMs, soakMs and approval`);
  if (typeof input.name !== 'string' || !namePattern.test(input.name)) throw new RolloutPolicyError(`${where}.name: a lowercase name of at most 63 letters, digits and dashes, such as "canary"`);
  let selector: Requirement[];
  try {
    selector = requirementsOf((input.clusterSelector ?? {}) as LabelSelector);
  } catch (error) {
    throw new RolloutPolicyError(`${where}.clusterSelector: ${error instanceof SelectorError ? error.message : 'not a label selector'}`);
  }
  if (input.approval !== undefined && typeof input.approval !== 'boolean') throw new RolloutPolicyError(`${where}.approval: must be true or false`);
  return {
    name: input.name, selector,
    maxParallel: parseMaxParallel(input.maxParallel, `${where}.maxParallel`),
    gateTimeoutMs: duration(input.gateTimeoutMs, `${where}.gateTimeoutMs`, rolloutDefaults.gateTimeoutMs, 1_000),
    soakMs: duration(input.soakMs, `${where}.soakMs`, rolloutDefaults.soakMs, 0),
    approval: input.approval === true,
  };
}

function parseMaxParallel(input: unknown, where: string): WavePolicy['maxParallel'] {
  if (input === undefined) return rolloutDefaults.maxParallel;
  if (typeof input === 'number' && Number.isInteger(input) && input >= 1 && input <= 10_000) return { count: input };
  const percent = typeof input === 'string' ? /^(\d{1,3})%$/.exec(input) : null;
  if (percent && Number(percent[1]) >= 1 && Number(percent[1]) <= 100) return { percent: Number(percent[1]) };
  throw new RolloutPolicyError(`${where}: a count of clusters (1 or more) or a percentage of the wave ("1%" to "100%")`);
}

function duration(input: unknown, where: string, fallback: number, minimum: number): number {
  if (input === undefined) return fallback;
  if (typeof input === 'number' && Number.isInteger(input) && input >= minimum && input <= maxDurationMs) return input;
  throw new RolloutPolicyError(`${where}: a whole number of ms from ${minimum} to ${maxDurationMs} (7 days)`);
}

/**
 * assignWaves puts each cluster in the first wave whose selector its labels match; a cluster no
 * wave selects joins the last wave, so none is left behind. Names are sorted within a wave, so
 * batches are the same in every process.
 */
export function assignWaves(policy: RolloutPolicy, clusters: readonly ClusterTarget[]): string[][] {
  const waves = policy.waves.map((): string[] => []);
  for (const cluster of clusters) {
    const index = policy.waves.findIndex((wave) => matches(wave.selector, cluster.labels));
    waves[index === -1 ? waves.length - 1 : index]!.push(cluster.name);
  }
  return waves.map((names) => names.sort());
}

/** batchSize is how many of a wave's `size` clusters are applied at once. */
export function batchSize(maxParallel: WavePolicy['maxParallel'], size: number): number {
  if ('count' in maxParallel) return Math.max(1, maxParallel.count);
  return Math.max(1, Math.ceil((size * maxParallel.percent) / 100));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
