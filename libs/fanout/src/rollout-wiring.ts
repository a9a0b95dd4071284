import { NotReadyError, messageOf, readRolloutRecord, readSourceStatus, rolloutTargetOf, type Logger, type RecordKeys, type RedisClient } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';
import { RolloutDriver, type RolloutDriverOptions } from './rollout-driver';
import type { RolloutPolicy } from './rollout-policy';
import { effectivePolicy } from './rollout-object/rollout-precedence';
import { RolloutObjectCache } from './rollout-object/rollout-at';
import { routePoll } from './route-poll';
import type { ClusterTarget, PlacementCache } from '@tidemark/placement';
import type { ReconcileQueues } from '@tidemark/queue';
import type { StatusStore } from '@tidemark/status-store';

/** RolloutWiring is what the rollout driver needs from the reconciler. */
export interface RolloutWiring {
  policies: readonly RolloutPolicy[];
  /** A source's policy at a revision, its Git Rollout included (gitRolloutPolicies). @defaultValue the config's only */
  policyAt?: RolloutDriverOptions['policyAt'];
  redis: RedisClient;
  statusStore: StatusStore;
  sources: ReadonlyMap<string, GitSource>;
  placement: PlacementCache;
  /** The clusters and their labels now (config clusters today; Cluster objects may join them). */
  clusters(): readonly ClusterTarget[];
  queues: ReconcileQueues;
  log: Logger;
  owner: string;
  /** Why a cluster's writes of a source wait now (a freeze, a sync window): its gate's clock stands still. @defaultValue never held */
  holdOf?: RolloutDriverOptions['holdOf'];
  /** For tests and benches. @defaultValue the driver's */
  driver?: Pick<RolloutDriverOptions, 'now' | 'tickMs' | 'onReach' | 'onNotice' | 'onRecord'>;
}

/**
 * rolloutDriver builds the driver of the configured rollout policies (started by the caller, in the
 * processes that poll): it routes a revision as the full resync does, every object to the clusters
 * placement picks, and enqueues only the clusters the engine reaches.
 */
export function rolloutDriver(wiring: RolloutWiring): RolloutDriver {
  const { statusStore, sources, placement } = wiring;
  return new RolloutDriver({
    redis: wiring.redis, keys: statusStore.keys, policies: new Map(wiring.policies.map((policy) => [policy.source, policy])),
    clusters: wiring.clusters,
    ...(wiring.policyAt ? { policyAt: wiring.policyAt, sources: () => sources.keys() } : {}),
    route: async (source, revision) => {
      const gitSource = sources.get(source);
      if (!gitSource) return [];
      return routePoll({ source, revision, moved: false, changes: [], errors: [], durationMs: 0, fetchedObjects: 0 }, { source: gitSource, placement, clusters: wiring.clusters(), statusStore });
    },
    enqueue: async (jobs) => void (await wiring.queues.enqueueAll(jobs)),
    statusOf: (cluster, objectKey) => statusStore.get(cluster, objectKey),
    ...(wiring.holdOf ? { holdOf: wiring.holdOf } : {}),
    log: wiring.log, owner: wiring.owner, ...wiring.driver,
  });
}

/**
 * gitRolloutPolicies is each source's policy at a revision: the Rollout object in its Git (read once
 * per revision), capped by the source's tidemark.yaml policy (effectivePolicy, docs/rollouts.md).
 * `sources` is read at each call, so a Source object added at runtime may roll out by its own Rollout.
 */
export function gitRolloutPolicies(sources: ReadonlyMap<string, GitSource>, policies: readonly RolloutPolicy[]): (source: string, revision: string) => Promise<RolloutPolicy | undefined> {
  const configured = new Map(policies.map((policy) => [policy.source, policy]));
  const cache = new RolloutObjectCache();
  return async (source, revision) => {
    const gitSource = sources.get(source);
    const git = gitSource ? await cache.rollout(source, gitSource, revision) : undefined;
    return effectivePolicy(configured.get(source), git);
  };
}

/**
 * rolloutTargets is the worker's question "which revision may a job of this source apply on this
 * cluster": undefined for a source without a rollout policy (the head, as before); else the
 * cluster's target in the rollout record. Without a record yet, or before a first rollout reaches
 * the cluster, or with a record that does not read, the job waits (NotReadyError) rather than guess.
 *
 * For a source without a policy in the config, whether a Rollout in Git governs it is read from the
 * revision the source delivered: one Redis read per job. With `revision` (the job's), a delivered
 * revision already found to hold no Rollout answers from memory (UngovernedRevisions) and says so
 * through `asked.fromMemory`: that answer covers that revision only, so the caller asks again
 * without it when the gate admits another (the head moved on).
 */
export function rolloutTargets(redis: RedisClient, keys: RecordKeys, policies: readonly RolloutPolicy[], policyAt?: RolloutWiring['policyAt'], ungoverned = new UngovernedRevisions()): RolloutTargetOf {
  const governed = new Set(policies.map((policy) => policy.source));
  return async (source, cluster, asked) => {
    if (!governed.has(source) && asked?.revision !== undefined && ungoverned.has(source, asked.revision)) {
      asked.fromMemory = true;
      return undefined;
    }
    const inGit = governed.has(source) || !policyAt ? undefined : await governedInGit(redis, keys, source, policyAt);
    if (inGit && !inGit.governed && inGit.revision) ungoverned.add(source, inGit.revision);
    if (!governed.has(source) && !inGit?.governed) return undefined;
    return recordedTarget(redis, keys, source, cluster, inGit?.invalid);
  };
}

/** recordedTarget is a governed source's target on the cluster in its rollout record, or why the job waits. */
async function recordedTarget(redis: RedisClient, keys: RecordKeys, source: string, cluster: string, invalid: string | undefined): Promise<string> {
  let record;
  try {
    record = await readRolloutRecord(redis, keys, source);
  } catch (error) {
    throw new NotReadyError('RolloutRecordUnreadable', messageOf(error), 30_000);
  }
  // A Rollout that does not read: each cluster keeps its target (applying and healing there); one with none waits.
  if (!record && invalid) throw new NotReadyError('RolloutInvalid', invalid, 30_000);
  if (!record) throw new NotReadyError('RolloutPending', `Source ${source} rolls out in waves and its rollout has not started yet; the object waits for it.`, 5_000);
  const target = rolloutTargetOf(record, cluster);
  if (!target) throw new NotReadyError('RolloutWaiting', `The rollout of source ${source} at ${record.revision.slice(0, 12)} has not reached cluster ${cluster} yet (its first revision there); the object waits for its wave.`, 30_000);
  return target;
}

/** RolloutTargetOf answers rolloutTargets' question; `asked` carries the job's revision, and learns whether memory answered. */
export type RolloutTargetOf = (source: string, cluster: string, asked?: { revision: string; fromMemory?: boolean }) => Promise<string | undefined>;

/**
 * UngovernedRevisions remembers (source, revision) pairs that were a source's delivered revision
 * and hold no Rollout. A revision's content never changes, so neither does that verdict; what moves
 * is which revision is delivered, and the caller covers that (it uses the verdict only when the job
 * applies that very revision). Bounded: the oldest entries go first.
 */
export class UngovernedRevisions {
  private readonly entries = new Set<string>();

  constructor(private readonly maxEntries = 256) {}

  has(source: string, revision: string): boolean {
    return this.entries.has(`${source}@${revision}`);
  }

  add(source: string, revision: string): void {
    const key = `${source}@${revision}`;
    this.entries.delete(key);
    this.entries.add(key);
    for (const oldest of this.entries) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }
}

/**
 * governedInGit tells whether the revision a source delivered holds a Rollout. One that does not read
 * governs too (the head never goes out on a policy half read), and `invalid` says why, naming the
 * file, the object and the field.
 */
async function governedInGit(redis: RedisClient, keys: RecordKeys, source: string, policyAt: NonNullable<RolloutWiring['policyAt']>): Promise<{ governed: boolean; revision?: string; invalid?: string }> {
  const { revision } = await readSourceStatus(redis, keys, source);
  if (!revision) return { governed: false };
  try {
    return { governed: (await policyAt(source, revision)) !== undefined, revision };
  } catch (error) {
    return { governed: true, invalid: `Source ${source} at ${revision.slice(0, 12)}: ${messageOf(error)}; its objects wait until the Rollout is fixed.` };
  }
}
