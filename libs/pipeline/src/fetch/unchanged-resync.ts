import { createHash } from 'node:crypto';
import { findCondition, jobFlags, type InventoryEntry, type ObjectStatus, type ReconcileJob, type ReconcileOutcome } from '@tidemark/contracts';
import type { ObjectCache } from '@tidemark/cluster';
import type { DesiredStateReader, PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { runCache, type CacheRun } from './stage-fetch';
import { inventoryId } from '../render/tracking';

/** ResyncRun is the part of the run a look-again reads before any stage: the job and its start. */
export type ResyncRun = CacheRun & Pick<ReconcileRun, 'ref' | 'startedAt'>;

/**
 * ResyncDependencies is what a look-again reads: the status records, the watch cache, the kinds,
 * Git's revision, placement and the observer it tells; it writes nothing.
 */
export type ResyncDependencies = Pick<PipelineDependencies, 'statusStore' | 'cacheFor' | 'tenancyFor' | 'kinds' | 'observer' | 'options' | 'now'> & {
  desired: Pick<DesiredStateReader, 'admitRevision' | 'identityAt'>;
};

/**
 * resyncUnchanged answers a run that would change nothing (unchangedSinceLastRun) with the next
 * look at the resync interval, telling the observer 'unchanged'; undefined when the stages must run.
 * A failure to decide (Redis not answering) runs the stages, which report it.
 */
export async function resyncUnchanged(run: ResyncRun, deps: ResyncDependencies): Promise<ReconcileOutcome | undefined> {
  if (!lookAgain(run.job)) return undefined;
  const verdict = await unchangedSinceLastRun(run, deps).catch((error: unknown) => ({ reason: `could not decide: ${String(error)}` }));
  const { cluster, objectKey } = run.job;
  if (verdict.reason !== undefined) return undefined;
  deps.observer?.reconciled({
    cluster, source: run.job.source, objectKey, revision: run.job.revision, kind: run.ref.kind, result: 'unchanged', stage: 'fetch',
    durationMs: Date.now() - run.startedAt.getTime(), becameReady: false, driftHealed: 0,
  });
  return { kind: 'requeue', afterMs: deps.options?.resyncIntervalMs ?? 300_000, resync: true };
}

/**
 * lookAgain: only a `routine` job (a resync) may be answered from the record. Every other job says
 * something changed even at the same revision: a Source whose path or spec changed, or that is being
 * deleted, routes its objects again at the commit they were applied from, and a watch or a person
 * asks for a look.
 */
function lookAgain(job: ReconcileJob): boolean {
  return jobFlags(job).routine;
}

/** UnchangedVerdict: the object is as its last full run left it (`reason` undefined), or why a full run must look. */
export interface UnchangedVerdict {
  previous?: ObjectStatus;
  /** Why the stages must run; undefined when nothing changed since the last full run. */
  reason?: string;
}

/**
 * unchangedSinceLastRun decides, for the cost of one status-store read and a few lookups in the
 * watch cache, whether a look-again would find what the last full run left: the same revision
 * (so the same desired state), Ready, every object it applied still at the resourceVersion that
 * apply left (so no drift, no deletion, the same health), and every dependency still Ready. Then
 * the run is answered without running the stages: no request, no status write, no Event, like
 * Argo CD comparing against its cluster cache. Level-triggering holds because any change moves a
 * resourceVersion or the revision; a full run still happens at least every
 * `options.fullCheckIntervalMs` per object, and for every object after the process starts (a new
 * release or config may render differently).
 */
export async function unchangedSinceLastRun(run: ResyncRun, deps: ResyncDependencies): Promise<UnchangedVerdict> {
  const cache = runCache(run, deps);
  if (!cache) return { reason: 'reads live (woken by a watch or a person, or acts as a ServiceAccount)' };
  const previous = await deps.statusStore.get(run.job.cluster, run.job.objectKey);
  return { previous, reason: await verdictFor(run.job, previous, cache, deps) };
}

/**
 * unchangedJobs is unchangedSinceLastRun for a resync sweep's batch (libs/queue's ResyncSweeper):
 * one status-store round trip per cluster, then the same verdict per job; false when it cannot tell.
 */
export async function unchangedJobs(jobs: readonly ReconcileJob[], deps: ResyncDependencies): Promise<boolean[]> {
  const verdicts: boolean[] = jobs.map(() => false);
  const byCluster = new Map<string, number[]>();
  jobs.forEach((job, index) => (byCluster.get(job.cluster) ?? byCluster.set(job.cluster, []).get(job.cluster)!).push(index));
  for (const [cluster, indexes] of byCluster) {
    const records = await deps.statusStore.getMany(cluster, indexes.map((index) => jobs[index]!.objectKey));
    await Promise.all(indexes.map(async (index, position) => {
      const job = jobs[index]!;
      const cache = jobCache(job, deps);
      verdicts[index] = cache !== undefined && (await verdictFor(job, records[position], cache, deps, true).catch(() => 'could not decide')) === undefined;
    }));
  }
  return verdicts;
}

/** jobCache is runCache for a job that has no run: none for a source acting as its ServiceAccount, or a job that is not a routine resync. */
function jobCache(job: ReconcileJob, deps: ResyncDependencies): ObjectCache | undefined {
  if (!lookAgain(job) || deps.tenancyFor?.(job.source)?.serviceAccount) return undefined;
  return deps.cacheFor?.(job.cluster);
}

/** verdictFor is the list of adjudicators: the first reason a full run is needed, or undefined. */
async function verdictFor(job: ReconcileJob, previous: ObjectStatus | undefined, cache: ObjectCache, deps: ResyncDependencies, sweep = false): Promise<string | undefined> {
  return recordVerdict(previous, deps)
    ?? kindVerdict(previous!, deps)
    ?? versionsVerdict(previous!, cache)
    ?? (await revisionVerdict(job, previous!, deps, sweep))
    ?? (await placementVerdict(job, previous!, deps))
    ?? (await dependenciesVerdict(job, previous!, deps));
}

/** recordVerdict: only a Ready record without a failure, drift or suspension, written by a recent full run, stands. */
function recordVerdict(previous: ObjectStatus | undefined, deps: ResyncDependencies): string | undefined {
  if (!previous) return 'no status record';
  if (previous.suspended) return 'suspended';
  if (findCondition(previous.conditions, 'Ready')?.status !== 'True') return 'not Ready';
  if (previous.failure || (previous.drift?.length ?? 0) > 0) return 'a failure or drift is recorded';
  return fullCheckVerdict(previous.objectKey, Date.parse(previous.updatedAt), deps);
}

/**
 * fullCheckVerdict: a record from before this process started, or older than the object's full-check
 * interval (fullCheckIntervalFor), gets a full run.
 */
function fullCheckVerdict(objectKey: string, written: number, deps: ResyncDependencies): string | undefined {
  const options = deps.options ?? {};
  if (options.fullCheckAfter && !(written >= options.fullCheckAfter.getTime())) return 'no full run since this process started';
  const now = (deps.now?.() ?? new Date()).getTime();
  if (!(now - written < fullCheckIntervalFor(objectKey, options.fullCheckIntervalMs ?? 3_600_000))) return 'full check due';
  return undefined;
}

/**
 * fullCheckIntervalFor spreads the full checks: an object's interval lies between half of
 * `intervalMs` and all of it, fixed per object (a hash of its key). Objects applied together by
 * one push are looked at again together at every resync; without the spread their full runs
 * (jobs, dry-runs, status writes) would all fall due at the same resync, once an interval, as a
 * burst. Like controller-runtime's jittered sync period, but stable, so no object waits longer
 * than the interval.
 */
export function fullCheckIntervalFor(objectKey: string, intervalMs: number): number {
  const fraction = createHash('sha1').update(objectKey).digest().readUInt32BE(0) / 0x1_0000_0000;
  return Math.round(intervalMs * (1 - fraction / 2));
}

/** kindVerdict: a kind that acts on the cluster or follows other objects (ConfigWatcher) always runs. */
function kindVerdict(previous: ObjectStatus, deps: ResyncDependencies): string | undefined {
  const plugin = deps.kinds.pluginFor(previous.apiVersion, previous.kind);
  return plugin?.act || plugin?.referencedObjects ? 'the kind acts on the cluster' : undefined;
}

/**
 * versionsVerdict: the object and everything it applied are held by the cache at the version the
 * last apply left. An object without a recorded version (a Secret, drift left in place) always runs.
 */
function versionsVerdict(previous: ObjectStatus, cache: ObjectCache): string | undefined {
  const versions = previous.appliedVersions;
  if (!versions || typeof versions !== 'object') return 'no applied versions recorded';
  const self: InventoryEntry = { apiVersion: previous.apiVersion, kind: previous.kind, namespace: previous.namespace, name: previous.name };
  for (const entry of [self, ...(previous.inventory ?? []), ...(previous.resources ?? [])]) {
    const recorded = versions[inventoryId(entry)]?.resourceVersion;
    if (typeof recorded !== 'string') return `no version recorded for ${entry.kind} ${entry.name}`;
    if (cache.heldVersion(entry) !== recorded) return `${entry.kind} ${entry.name} changed or is not cached`;
  }
  return undefined;
}

/**
 * revisionVerdict: the revision a run would apply is the one last applied. A run asks about its
 * job's revision (admitRevision refuses one that is not on the ref, and the stages then report it);
 * the sweep asks about the record's (`ofRecord`): the slot of an object that Git has not changed
 * since names an older commit for ever, and showing that it is an ancestor of the head is a walk of
 * the history, while "the last applied revision is the head" is one comparison. A sweep answers
 * nothing for a job, so a forged one gets no run either way.
 */
async function revisionVerdict(job: ReconcileJob, previous: ObjectStatus, deps: ResyncDependencies, ofRecord = false): Promise<string | undefined> {
  const asked = ofRecord ? previous.lastAppliedRevision : job.revision;
  if (!deps.desired.admitRevision || asked === undefined) return job.revision === previous.lastAppliedRevision ? undefined : 'a new revision';
  // The stages refuse a revision that is not admitted; here it only means "look".
  const admitted = await deps.desired.admitRevision(job.source, asked, job.cluster).catch(() => undefined);
  return admitted !== undefined && admitted === previous.lastAppliedRevision ? undefined : 'a new revision';
}

/** placementVerdict: an object a Placement rule applies as a ServiceAccount reads live, as fetch does. */
async function placementVerdict(job: ReconcileJob, previous: ObjectStatus, deps: ResyncDependencies): Promise<string | undefined> {
  if (!deps.desired.identityAt || previous.path === undefined) return undefined;
  const path = previous.renderUnit ? `${previous.path.replace(/\/+$/, '')}/` : previous.path;
  const placed = await deps.desired.identityAt(job.source, previous.lastAppliedRevision ?? job.revision, path);
  return placed ? 'placed as a ServiceAccount' : undefined;
}

/**
 * dependenciesVerdict: what the object waits for by depends-on or sync wave must still be Ready, as
 * the order stage would find it. Its Namespace and CRD are not read: they are what the object needs
 * to exist at all, and it is still there at the version its apply left.
 */
async function dependenciesVerdict(job: ReconcileJob, previous: ObjectStatus, deps: ResyncDependencies): Promise<string | undefined> {
  const dependencies = previous.dependencies;
  if (!dependencies || dependencies.total === 0) return undefined;
  if (dependencies.edges.length < dependencies.total) return 'dependencies not all recorded';
  const waited = dependencies.edges.filter((edge) => edge.reason !== 'namespace' && edge.reason !== 'crd');
  if (waited.some((edge) => !edge.objectKey)) return 'a dependency without a key';
  const records = waited.length === 0 ? [] : await deps.statusStore.getMany(job.cluster, waited.map((edge) => edge.objectKey!));
  return records.every((record) => findCondition(record?.conditions, 'Ready')?.status === 'True') ? undefined : 'a dependency is not Ready';
}
