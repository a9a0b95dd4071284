import { ApiError, deleteObject, describe, getByResource, toReconcileFailure, type ChangeSetEntry, type ClusterConnection } from '@tidemark/cluster';
import { groupOf, NotReadyError, TerminalError, describeObject, formatObjectKey, isReconcileFailure, findCondition, Reason, type InventoryEntry, type KubernetesManifest, type ObjectStatus } from '@tidemark/contracts';
import type { PruneHold } from '@tidemark/status-store';
import type { DesiredStateReader, PipelineDependencies } from '../dependencies';
import type { PruneResult, ReconcileRun } from '../run';
import { allowPrune, builtinCrdGuard, crdInstancesGuard, describeEntry, namespaceContentsGuard, ownSourceGuard, pruneAnnotationGuard, stillDeclaredGuard, type KeptObject, type PruneCandidate, type PruneContext, type PruneGuard, type PruneVerdict } from './guards';
import { ownershipGuard } from './ownership-guard';
import { inventoryEntry, ownerOfRun, pruneEmptyAnnotation, staleEntries } from '../render/tracking';
import type { AppliedObjects } from '../apply/apply-results';
import { subjectOf } from '../observe/subject';
import { otherDeclarations, type DuplicateDependencies } from '../fetch/duplicate-check';

/** PruneRun is the part of the run prune reads: the job, its identity, the objects Git and the cluster hold, and the last record. */
export type PruneRun = Pick<ReconcileRun, 'job' | 'ref' | 'stage' | 'connection' | 'hookState' | 'desired' | 'live' | 'object' | 'previous'>;

/** PruneDependencies is what prune reads: Git at the run's revision, the kinds, the status store, the guards and mass-prune holds. */
export type PruneDependencies = Pick<PipelineDependencies, 'kinds' | 'statusStore' | 'pruneGuards' | 'pruneHolds' | 'log' | 'options'> & DuplicateDependencies & {
  desired: Pick<DesiredStateReader, 'readObject' | 'identityAt'>;
};

/**
 * pruneStage deletes what the last run owned and this one no longer renders, and returns each
 * deletion as a 'deleted' change-set entry, with the objects a prune guard kept. A CR that now renders nothing would prune all it
 * rendered before: that takes the tidemark.dev/prune-empty opt-in.
 */
export async function pruneStage(run: PruneRun, deps: PruneDependencies, before: readonly InventoryEntry[], applied: AppliedObjects): Promise<PruneResult> {
  run.stage = 'prune';
  const stale = staleEntries(before, applied.inventory);
  if (stale.length === 0) return { deleted: [], kept: [] };
  const optedIn = run.object?.metadata.annotations?.[pruneEmptyAnnotation] === 'true';
  if (applied.inventory.length === 0 && !optedIn && !run.hookState) {
    throw new TerminalError('EmptyRender',
      `${run.object?.kind} ${run.object?.metadata.name} now renders nothing, which would prune all ${stale.length} objects it rendered before. ` +
      `If that is intended, annotate it with ${pruneEmptyAnnotation}: "true".`);
  }
  try {
    return await pruneEntries(run, deps, stale);
  } catch (error) {
    throw toReconcileFailure(error, `prune ${subjectOf(run)}`);
  }
}

/** previousInventory is what the last run applied: the CR's in-cluster record first, then the store. A hint, never proof. */
export function previousInventory(run: PruneRun): InventoryEntry[] {
  const inCluster = (run.live?.status as { inventory?: unknown } | undefined)?.inventory;
  if (Array.isArray(inCluster)) return inCluster.filter(isInventoryEntry).map((entry) => ({ ...entry, namespace: entry.namespace ?? '' }));
  return run.previous?.inventory ?? [];
}

/**
 * pruneEntries deletes the objects inventory entries name, each only if every prune guard
 * allows it; each is read first and judged on what the cluster holds. It returns a 'deleted'
 * change-set entry for each deleted object, and the ones a guard kept, with the reason.
 */
export async function pruneEntries(run: PruneRun, deps: PruneDependencies, entries: readonly InventoryEntry[]): Promise<PruneResult> {
  const result: PruneResult = { deleted: [], kept: [] };
  for (const entry of entries) {
    const live = await readEntry(run.connection, entry);
    if (live) addPruned(result, await pruneLive(run, deps, entry, live));
  }
  return result;
}

/** pruneLiveObject deletes one live object the run found, if the guards allow. */
export function pruneLiveObject(run: PruneRun, deps: PruneDependencies, live: KubernetesManifest): Promise<PruneResult> {
  return pruneLive(run, deps, inventoryEntry(live), live);
}

/** addPruned adds what one prune did to what a run pruned so far. */
export function addPruned(into: PruneResult, result: PruneResult): PruneResult {
  into.deleted.push(...result.deleted);
  into.kept.push(...result.kept);
  return into;
}

/** judgePrune asks every prune guard about one live object. */
export function judgePrune(run: PruneRun, deps: PruneDependencies, entry: InventoryEntry, live: KubernetesManifest): Promise<PruneVerdict & { guard?: string }> {
  const candidate = { entry, live, owner: ownerOfRun(run), fieldManager: run.connection.fieldManager, context: pruneContext(run, deps) };
  return adjudicatePrune(candidate, deps.pruneGuards ?? defaultPruneGuards);
}

async function pruneLive(run: PruneRun, deps: PruneDependencies, entry: InventoryEntry, live: KubernetesManifest): Promise<PruneResult> {
  const verdict = await judgePrune(run, deps, entry, live);
  if (!verdict.allowed) return { deleted: [], kept: [kept(run, deps, { entry, guard: verdict.guard ?? 'unknown', reason: verdict.reason })] };
  // Deleted as judged: a change since the read (the annotation stripped, the object replaced) fails the delete.
  const target = { group: groupOf(entry.apiVersion), kind: entry.kind, namespace: entry.namespace, name: entry.name };
  const gone = (await deleteObject(run.connection, target, { uid: live.metadata.uid, resourceVersion: live.metadata.resourceVersion })) === 'deleted';
  return { deleted: gone ? [deletedEntry(entry)] : [], kept: [] };
}

function kept(run: PruneRun, deps: PruneDependencies, object: KeptObject): KeptObject {
  deps.log?.warn({ objectKey: run.job.objectKey, cluster: run.job.cluster, kept: describeEntry(object.entry), guard: object.guard, reason: object.reason }, 'prune refused');
  return object;
}

async function readEntry(connection: ClusterConnection, entry: InventoryEntry): Promise<KubernetesManifest | undefined> {
  let resource;
  try {
    resource = await connection.discovery.resourceForGroupKind(groupOf(entry.apiVersion), entry.kind);
  } catch (error) {
    if (error instanceof ApiError && error.isNotFound) return undefined;
    if (error instanceof NotReadyError && error.code === 'KindNotServed') return undefined;
    throw error;
  }
  const live = await getByResource(connection, resource, resource.namespaced ? entry.namespace || undefined : undefined, entry.name);
  return live ? { ...live, apiVersion: live.apiVersion || entry.apiVersion, kind: live.kind || entry.kind } : undefined;
}

/** deletedEntry is the change-set entry of a deletion; its object is the identity the inventory knew. */
export function deletedEntry(entry: InventoryEntry): ChangeSetEntry {
  const object: KubernetesManifest = { apiVersion: entry.apiVersion, kind: entry.kind, metadata: { name: entry.name, ...(entry.namespace ? { namespace: entry.namespace } : {}) } };
  return { subject: describe(object), action: 'deleted', object };
}

function isInventoryEntry(value: unknown): value is InventoryEntry {
  const entry = value as Partial<InventoryEntry> | null;
  return typeof entry === 'object' && entry !== null && typeof entry.apiVersion === 'string' && typeof entry.kind === 'string'
    && typeof entry.name === 'string' && typeof (entry.namespace ?? '') === 'string';
}

/** pruneContext gives the prune guards the run's cluster, and Git at the run's revision. */
export function pruneContext(run: PruneRun, deps: PruneDependencies): PruneContext {
  return {
    connection: run.connection,
    source: run.job.source,
    builtinCrd(name) {
      const plugin = deps.kinds.list().find((candidate) => candidate.crd.metadata.name === name);
      if (!plugin) return undefined;
      return { kind: plugin.kind, managedBySource: deps.options?.builtinCrdSources?.[name]?.includes(run.job.source) ?? false };
    },
    declaredBy: (live) => declaredBy(run, deps, live),
    record: recordOfRun(run),
  };
}

/** recordOfRun is the run's previous status record, only if it is the record of this very cluster and Git object. */
function recordOfRun(run: PruneRun): unknown {
  const record: unknown = run.previous;
  if (typeof record !== 'object' || record === null) return undefined;
  const { cluster, objectKey, source } = record as Record<string, unknown>;
  return cluster === run.job.cluster && objectKey === run.job.objectKey && source === run.job.source ? record : undefined;
}

/**
 * declaredBy looks in Git, at the run's revision, for another object key that names the same
 * live object: the namespace written out or left to the default are one object.
 */
async function declaredBy(run: PruneRun, deps: PruneDependencies, live: KubernetesManifest): Promise<string | undefined> {
  const defaultNamespace = deps.options?.defaultNamespace ?? 'default';
  const namespace = live.metadata.namespace ?? '';
  const spellings = new Set([namespace]);
  if (namespace === defaultNamespace) spellings.add('');
  for (const spelling of spellings) {
    const objectKey = formatObjectKey({ group: groupOf(live.apiVersion), kind: live.kind, namespace: spelling, name: live.metadata.name });
    if (objectKey === run.job.objectKey) continue;
    try {
      const found = await deps.desired.readObject(run.job.source, run.job.revision, objectKey, run.job.cluster);
      if (found) return `${describeObject({ kind: live.kind, namespace: found.object.metadata.namespace ?? '', name: live.metadata.name })} in ${found.path}${found.line ? `:${found.line}` : ''}`;
    } catch (error) {
      // An unreadable Git object still declares the key: never delete on its account.
      if (isReconcileFailure(error)) return `a file in Git that cannot be read (${error.message})`;
      throw error;
    }
  }
  // Another source, or another spelling discovery resolves to this object (kind case, resource name, old group).
  const [other] = await otherDeclarations(run, deps, { apiVersion: live.apiVersion, kind: live.kind, namespace, name: live.metadata.name });
  return other ? `source ${other.source} at ${other.path}${other.line ? `:${other.line}` : ''}` : undefined;
}

/**
 * checkMassPrune stops the prune of an object removed from Git when its revision removes more
 * than the allowed share of the source's objects on this cluster (big accidental deletes are the
 * top GitOps incident). The share is kept as a PruneHold, keyed by what it would remove: it is
 * decided again for an object the hold does not list, so a change that removes more at the same
 * revision (the Source's path, its deletion, a cluster relabelled out of a Placement rule) is a new
 * question, not covered by an earlier small prune. The object then waits (not-ready) until someone
 * confirms the hold on the dashboard.
 */
export async function checkMassPrune(run: PruneRun, deps: PruneDependencies): Promise<void> {
  const holds = deps.pruneHolds;
  if (!holds) return;
  const { source, cluster, revision, objectKey } = run.job;
  let hold = await holds.get(source, cluster);
  if (hold?.revision !== revision || !hold.removed.includes(objectKey)) hold = await holds.decide(await decideHold(run, deps));
  if (hold.state !== 'waiting' || !hold.removed.includes(objectKey)) return;
  const percent = (share: number) => `${Math.round(share * 100)}%`;
  throw new NotReadyError('PruneAwaitingConfirmation',
    `${subjectOf(run)} was removed from Git at ${revision.slice(0, 12)}, with ${hold.removed.length} of the ${hold.total} objects of source ${source} on cluster ${cluster} ` +
    `(${percent(hold.removed.length / hold.total)}), more than the ${percent(hold.threshold)} pruned at once without asking. Nothing is deleted until someone confirms this prune on the dashboard's Prunes page.`,
    60_000);
}

/** decideHold counts the source's objects on the cluster that the revision no longer declares there. */
async function decideHold(run: PruneRun, deps: PruneDependencies): Promise<PruneHold> {
  const { source, cluster, revision } = run.job;
  const threshold = deps.options?.massPrune?.threshold ?? 0.5;
  const minimum = deps.options?.massPrune?.minimumObjects ?? 2;
  const records = (await deps.statusStore.list(cluster)).filter((record) => record.source === source && !isOrphaned(record));
  const removed: string[] = [];
  for (const record of records) {
    if (!(await declared(run, deps, record.objectKey))) removed.push(record.objectKey);
  }
  const over = removed.length >= minimum && removed.length / Math.max(1, records.length) > threshold;
  return { source, cluster, revision, removed, total: records.length, threshold, state: over ? 'waiting' : 'allowed', decidedAt: new Date().toISOString() };
}

async function declared(run: PruneRun, deps: PruneDependencies, objectKey: string): Promise<boolean> {
  try {
    return (await deps.desired.readObject(run.job.source, run.job.revision, objectKey, run.job.cluster)) !== undefined;
  } catch (error) {
    // Unreadable is still declared: a broken file is not a request to delete.
    if (isReconcileFailure(error)) return true;
    throw error;
  }
}

function isOrphaned(record: ObjectStatus): boolean {
  return findCondition(record.conditions, 'Ready')?.reason === Reason.Orphaned;
}

/**
 * defaultPruneGuards are the guards every delete passes, in order: ownership first (only what
 * Tidemark applied for this very Git object is Tidemark's to delete), then the cheap ones that
 * read only the object, then those that ask Git, then those that list the cluster.
 */
export const defaultPruneGuards: readonly PruneGuard[] = Object.freeze([
  ownershipGuard, pruneAnnotationGuard, ownSourceGuard, builtinCrdGuard, stillDeclaredGuard, crdInstancesGuard, namespaceContentsGuard,
]);

/** adjudicatePrune asks each guard in turn; the first refusal wins and names its guard. */
export async function adjudicatePrune(candidate: PruneCandidate, guards: readonly PruneGuard[]): Promise<PruneVerdict & { guard?: string }> {
  for (const guard of guards) {
    const verdict = await guard.check(candidate);
    if (!verdict.allowed) return { ...verdict, guard: guard.name };
  }
  return allowPrune;
}
