import { describeObject, formatObjectKey, groupOf, isReconcileFailure, type KubernetesManifest } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import type { PruneContext } from './guards';
import type { ReconcileRun } from '../run';
import { otherDeclarations } from '../fetch/duplicate-check';

/** pruneContext gives the prune guards the run's cluster, and Git at the run's revision. */
export function pruneContext(run: ReconcileRun, deps: PipelineDependencies): PruneContext {
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
function recordOfRun(run: ReconcileRun): unknown {
  const record: unknown = run.previous;
  if (typeof record !== 'object' || record === null) return undefined;
  const { cluster, objectKey, source } = record as Record<string, unknown>;
  return cluster === run.job.cluster && objectKey === run.job.objectKey && source === run.job.source ? record : undefined;
}

/**
 * declaredBy looks in Git, at the run's revision, for another object key that names the same
 * live object: the namespace written out or left to the default are one object.
 */
async function declaredBy(run: ReconcileRun, deps: PipelineDependencies, live: KubernetesManifest): Promise<string | undefined> {
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
