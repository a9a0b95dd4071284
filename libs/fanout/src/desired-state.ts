import { TerminalError, contentHash, isHealthRuleKey, isReadOnlyKey, parseHook } from '@tidemark/contracts';
import { compileHealthRuleObjects, type HealthRuleObject, type SourceHealthRules } from '@tidemark/kinds';
import { buildRevisionOrdering, type OrderedObject, type RevisionOrdering } from '@tidemark/ordering';
import type { GitSource } from '@tidemark/git-source';
import type { ClusterTarget, PlacementCache } from '@tidemark/placement';
import type { DesiredObject, DesiredStateReader } from '@tidemark/pipeline';
import type { RolloutTargetOf } from './rollout-wiring';

/**
 * gitDesiredState reads desired objects from this process's own Git sources. An object that
 * placement does not send to the job's cluster is not desired there: the pipeline prunes it, and
 * so is every object of a retiring source (a Source object being deleted) but its pre-delete hooks,
 * which run first (libs/pipeline's stage-pre-delete).
 */
export function gitDesiredState(sources: ReadonlyMap<string, GitSource>, placement: PlacementCache, clusters: readonly ClusterTarget[], retiring: ReadonlySet<string> = new Set(), targetOf?: RolloutTargetOf): DesiredStateReader {
  const sourceOf = (source: string): GitSource => {
    const gitSource = sources.get(source);
    if (!gitSource) throw new TerminalError('UnknownSource', `job names source "${source}", which is not configured; add it to the config or drop the job.`);
    return gitSource;
  };
  const orderings = new Map<string, Promise<RevisionOrdering>>();
  const healthRules = new Map<string, Promise<SourceHealthRules>>();
  const reader: DesiredStateReader = {
    // A job from Redis only proposes a revision; the source decides what may be applied.
    // A source that rolls out in waves applies each cluster's own target revision (rolloutTargets), not the head.
    admitRevision: async (source, revision, cluster) => {
      if (cluster === undefined || !targetOf) return sourceOf(source).admitRevision(revision);
      const asked = { revision, fromMemory: false };
      const target = await targetOf(source, cluster, asked);
      if (target) return sourceOf(source).admitTarget(target);
      const admitted = await sourceOf(source).admitRevision(revision);
      // Memory said the job's own revision holds no Rollout; the head the gate admitted instead is asked about in Redis.
      if (!asked.fromMemory || admitted === revision) return admitted;
      const current = await targetOf(source, cluster);
      return current ? sourceOf(source).admitTarget(current) : admitted;
    },
    async readObject(source, revision, objectKey, cluster): Promise<DesiredObject | undefined> {
      const gitSource = sourceOf(source);
      const found = await gitSource.readObject(revision, objectKey, cluster);
      if (!found) return undefined;
      // A deleted Source (seen in the management cluster, held by its finalizer) declares only its pre-delete hooks, to run them.
      const retiringHook = retiring.has(source) && parseHook(found.object).hook?.phase === 'pre-delete';
      if (retiring.has(source) && !retiringHook) return undefined;
      if (!(await placement.targetsOf(source, gitSource, revision, found, clusters)).includes(cluster)) return undefined;
      return { object: found.object, path: found.path, line: found.line, ...(found.unit ? { unit: found.unit } : {}), ...(retiringHook ? { retiring: true } : {}) };
    },
    retiring: (source) => retiring.has(source),
    // The ServiceAccount of the Placement rule that places a file or unit folder (runConnections decides whether it counts).
    async identityAt(source, revision, path) {
      return placement.identityAt(source, sourceOf(source), revision, path);
    },
    orderingAt(source, revision, cluster) {
      // A retiring source's revision orders its pre-delete hooks only: another graph, under another key.
      const key = `${source}@${revision}@${cluster}${retiring.has(source) ? '@retiring' : ''}`;
      let ordering = orderings.get(key);
      if (!ordering) {
        ordering = readOrdering(source, revision, cluster);
        ordering.catch(() => orderings.delete(key));
        orderings.set(key, ordering);
        // A few revisions per source and cluster are in use at once; the oldest go first.
        for (const old of orderings.keys()) if (orderings.size > orderingCacheSize) orderings.delete(old);
      }
      return ordering;
    },
    healthRulesAt(source, revision) {
      const key = `${source}@${revision}`;
      let rules = healthRules.get(key);
      if (!rules) {
        rules = readHealthRules(source, revision);
        rules.catch(() => healthRules.delete(key));
        healthRules.set(key, rules);
        for (const old of healthRules.keys()) if (healthRules.size > orderingCacheSize) healthRules.delete(old);
      }
      return rules;
    },
  };
  /**
   * readHealthRules compiles the source's HealthRule objects at a revision, once: every cluster
   * the source reaches judges its objects alike, so placement does not apply to them. A file that
   * does not parse is the poll's error, reported on the source; here it declares no rule.
   */
  async function readHealthRules(source: string, revision: string): Promise<SourceHealthRules> {
    const gitSource = sourceOf(source);
    if (retiring.has(source)) return { rules: [], refused: [] };
    const objects: HealthRuleObject[] = [];
    for (const { objectKey } of (await gitSource.listObjects(revision)).objects) {
      if (!isHealthRuleKey(objectKey)) continue;
      const found = await gitSource.readObject(revision, objectKey).catch(() => undefined);
      if (found && !found.unit) objects.push({ object: found.object, path: found.path });
    }
    return compileHealthRuleObjects(objects);
  }
  /**
   * readOrdering reads every object the revision places on the cluster once, for its ordering
   * annotations. What is read but never applied is left out: it is never Ready, so a wave above it would wait forever.
   */
  async function readOrdering(source: string, revision: string, cluster: string): Promise<RevisionOrdering> {
    const objects: OrderedObject[] = [];
    for (const { objectKey } of (await sourceOf(source).listObjects(revision)).objects) {
      if (isReadOnlyKey(objectKey)) continue;
      // A broken object is reported by its own job; here it orders nothing.
      const desired = await reader.readObject(source, revision, objectKey, cluster).catch(() => undefined);
      if (desired) objects.push({ objectKey, object: desired.object, path: desired.path, specHash: contentHash(desired.object) });
    }
    return buildRevisionOrdering(source, objects);
  }
  return reader;
}

const orderingCacheSize = 32;
