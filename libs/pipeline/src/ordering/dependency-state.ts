import { NotReadyError, Reason, findCondition, parseObjectKey, type ObjectStatus, type DependencyEdges } from '@tidemark/contracts';
import { getByResource, getObject } from '@tidemark/cluster';
import { healthOf } from '@tidemark/kinds';
import { crdToken, objectToken, type Dependency } from '@tidemark/ordering';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';

/** DependencyRun is the part of the run a dependency check and the record's edges read. */
export type DependencyRun = Pick<ReconcileRun, 'job' | 'ref' | 'connection' | 'desired' | 'object' | 'previous' | 'ordering' | 'failure'>;

/** DependencyStateDependencies is what a dependency check reads: the status store and the health rules. */
export type DependencyStateDependencies = Pick<PipelineDependencies, 'statusStore' | 'healthRules'>;

/** Unmet says why a dependency is not ready yet, as the waiting object's condition will say it. */
export interface Unmet {
  message: string;
  /** Set when no wake-up may come (a CRD Established but not served yet): look again this soon. */
  recheckMs?: number;
  /** Set when the dependency failed (its health check, or its health timeout): waiting on it is failing, not progress. */
  failed?: boolean;
}

/** How soon a custom resource looks again when its CRD is Established but discovery lags behind. */
const discoveryLagMs = 500;
/** How soon it looks again for a CRD no Git object of this revision declares (its name is not known). */
const unknownCrdMs = 5_000;

const because: Record<Dependency['reason'], string> = {
  'depends-on': 'tidemark.dev/depends-on',
  'sync-wave': 'sync wave',
  namespace: 'its Namespace',
  crd: 'its CRD',
  hook: 'a sync hook',
};

/**
 * checkDependency says whether one dependency is ready for the run's object, or why not. A Git
 * object of the same revision must be Ready at that revision's spec (its status record says so);
 * a CRD must be served; anything else must be Ready in the status store, or as a live object by
 * its kind's health rule.
 */
export async function checkDependency(run: DependencyRun, deps: DependencyStateDependencies, dependency: Dependency): Promise<Unmet | undefined> {
  if (dependency.reason === 'crd') return checkCrd(run, deps, dependency);
  const record = await deps.statusStore.get(run.job.cluster, dependency.objectKey);
  if (dependency.specHash !== undefined) return checkRecord(dependency, record, dependency.specHash);
  if (record) return checkRecord(dependency, record, undefined);
  return checkLive(run, deps, dependency);
}

/** checkCrd: the kind is served once its CRD is Established; discovery refreshes on a miss. */
async function checkCrd(run: DependencyRun, deps: DependencyStateDependencies, dependency: Dependency): Promise<Unmet | undefined> {
  const apiVersion = run.desired?.object.apiVersion ?? '';
  try {
    await run.connection.discovery.resourceFor(apiVersion, run.ref.kind);
    return undefined;
  } catch (error) {
    if (!(error instanceof NotReadyError)) throw error;
  }
  if (!dependency.objectKey) {
    // The watch wakes it when such a CRD is Established; its name is unknown, so it also looks again.
    return { message: `waiting for the CRD of ${run.ref.kind} (${apiVersion}), which this source does not declare, to be Established`, recheckMs: unknownCrdMs };
  }
  const name = parseObjectKey(dependency.objectKey).name;
  const crd = await getObject(run.connection, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name });
  // Established, yet not in discovery: the watch has fired already, so look again shortly.
  if (crd && healthOf(crd, deps.healthRules).status === 'Ready') return { message: `waiting for CRD ${name} to be served`, recheckMs: discoveryLagMs };
  return { message: `waiting for CRD ${name} to be Established` };
}

function checkRecord(dependency: Dependency, record: ObjectStatus | undefined, specHash: string | undefined): Unmet | undefined {
  const waiting = `waiting for ${dependency.description} (${describeReason(dependency)}) to be Ready`;
  if (!record) return { message: `${waiting}: it has not been reconciled on this cluster yet` };
  const ready = findCondition(record.conditions, 'Ready');
  if (specHash !== undefined && record.specHash !== specHash) return { message: `${waiting}: it has not been reconciled at this revision yet` };
  if (ready?.status === 'True') return undefined;
  return { message: `${waiting}: ${ready ? `${ready.reason}: ${ready.message}` : 'it has no Ready condition yet'}`, ...(ready?.reason === Reason.HealthCheckFailed ? { failed: true } : {}) };
}

/** checkLive judges an object that no status record covers (not from Git) by its kind's health rule. */
async function checkLive(run: DependencyRun, deps: DependencyStateDependencies, dependency: Dependency): Promise<Unmet | undefined> {
  const ref = parseObjectKey(dependency.objectKey);
  const waiting = `waiting for ${dependency.description} (${describeReason(dependency)})`;
  let live;
  try {
    const resource = await run.connection.discovery.resourceForGroupKind(ref.group, ref.kind);
    live = await getByResource(run.connection, resource, resource.namespaced ? ref.namespace || undefined : undefined, ref.name);
  } catch (error) {
    if (error instanceof NotReadyError) return { message: `${waiting}: the cluster does not serve ${ref.kind}${ref.group ? ` (${ref.group})` : ''}, and no Git object declares it` };
    throw error;
  }
  if (!live) return { message: `${waiting}: neither Git nor the cluster has it` };
  const health = healthOf(live, deps.healthRules);
  if (health.status === 'Ready') return undefined;
  return { message: `${waiting} to be Ready: ${health.message}`, ...(health.status === 'Failed' ? { failed: true } : {}) };
}

function describeReason(dependency: Dependency): string {
  if (dependency.reason === 'sync-wave') return `sync wave ${dependency.wave ?? 0}`;
  return because[dependency.reason];
}

/** At most this many edges are kept per record: a sync wave makes every object of a wave wait for all of the one before. */
const maxEdges = 50;

/** dependencyEdges is what the run's object waits for, as its status record keeps it; nothing when it waits for nothing. */
export function dependencyEdges(run: DependencyRun): { dependencies?: DependencyEdges } {
  const all = run.ordering?.dependencies ?? [];
  if (all.length === 0) return {};
  const edges = all.slice(0, maxEdges).map(({ objectKey, description, reason, source, wave }) => ({
    objectKey, description, reason, ...(source ? { source } : {}), ...(wave !== undefined ? { wave } : {}),
  }));
  return { dependencies: { edges, total: all.length } };
}

/** keptDependencyEdges: a failed run records what it read; one that failed before reading its ordering keeps the last run's. */
export function keptDependencyEdges(run: DependencyRun): { dependencies?: DependencyEdges } {
  if (run.ordering) return dependencyEdges(run);
  return run.previous?.dependencies ? { dependencies: run.previous.dependencies } : {};
}

/**
 * dependentTokens says whom finalize wakes after a run's status is written: an object now Ready
 * wakes what waits on it, and so does one whose Ready condition changed (its dependents then say
 * why they still wait); a CRD also wakes what waits for its kind. Empty when nobody is to be woken.
 */
export function dependentTokens(run: DependencyRun, record: ObjectStatus | undefined): string[] {
  if (!readyChanged(run, record)) return [];
  const tokens = [objectToken(run.job.objectKey)];
  const spec = run.object?.kind === 'CustomResourceDefinition' ? (run.object.spec as { group?: unknown; names?: { kind?: unknown } } | undefined) : undefined;
  if (typeof spec?.group === 'string' && typeof spec.names?.kind === 'string') tokens.push(crdToken(spec.group, spec.names.kind));
  return tokens;
}

/** readyChanged: the run ended Ready, or with another Ready condition than the last run (a wait's message included). */
function readyChanged(run: DependencyRun, record: ObjectStatus | undefined): boolean {
  const before = findCondition(run.previous?.conditions, 'Ready');
  if (run.failure) return run.failure instanceof NotReadyError && before?.message !== run.failure.message;
  const ready = findCondition(record?.conditions, 'Ready');
  if (!ready) return false;
  return ready.status === 'True' || ready.status !== before?.status || ready.reason !== before.reason || ready.message !== before.message;
}
