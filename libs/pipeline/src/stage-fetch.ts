import { ConditionType, NotReadyError, TerminalError, contentHash, findCondition, parseObjectKey, type KubernetesManifest } from '@tidemark/contracts';
import { getByResource, type ApiResource } from '@tidemark/cluster';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';

/**
 * fetchStage reads the desired object from Git at the job's revision, the live object from the
 * cluster and the last status. A suspended object is skipped. A stalled object whose spec did
 * not change is skipped at the revision it stalled at, and stalls again at a new revision (see
 * stalledAgain): the pipeline alone decides "stalled", the queue follows what it says.
 */
export async function fetchStage(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  run.stage = 'fetch';
  if (deps.desired.admitRevision) run.job = { ...run.job, revision: await deps.desired.admitRevision(run.job.source, run.job.revision) };
  const { job } = run;
  run.previous = await deps.statusStore.get(job.cluster, job.objectKey);
  if (run.previous?.suspended) {
    run.skipped = true;
    return;
  }
  run.desired = await deps.desired.readObject(job.source, job.revision, job.objectKey, job.cluster);
  if (run.desired) run.specHash = contentHash(run.desired.object);
  if (stalledAgain(run)) return;
  const apiVersion = run.desired?.object.apiVersion ?? run.previous?.apiVersion;
  if (!apiVersion) return; // Neither in Git nor ever reconciled: nothing to do.
  run.plugin = deps.kinds.pluginFor(apiVersion, run.ref.kind);
  const resource = await resourceOrUndefined(run, apiVersion);
  const namespace = namespaceFor(run, resource, deps.options?.defaultNamespace ?? 'default');
  if (run.desired) run.object = withNamespace(run.desired.object, namespace);
  if (resource) run.live = await getByResource(run.connection, resource, namespace || undefined, run.ref.name);
}

/**
 * stalledAgain: a terminal failure is not retried until the spec changes (or a person asks). At
 * the revision it stalled at, the run is skipped; at a new revision with the same spec, it fails
 * again with the same reason, so the queue's marker moves to that revision and retry finds it.
 */
function stalledAgain(run: ReconcileRun): boolean {
  if (run.job.reason === 'manual' || !run.specHash || run.previous?.specHash !== run.specHash) return false;
  const stalled = findCondition(run.previous.conditions, ConditionType.Stalled);
  if (stalled?.status !== 'True') return false;
  if (run.previous.lastAttemptedRevision === run.job.revision) {
    run.skipped = true;
    return true;
  }
  run.stalledAgain = true;
  throw new TerminalError(stalled.reason, stalled.message);
}

async function resourceOrUndefined(run: ReconcileRun, apiVersion: string): Promise<ApiResource | undefined> {
  try {
    return await run.connection.discovery.resourceFor(apiVersion, run.ref.kind);
  } catch (error) {
    // The kind's CRD may not be installed yet; validate and apply report that.
    if (error instanceof NotReadyError) return undefined;
    throw error;
  }
}

function namespaceFor(run: ReconcileRun, resource: ApiResource | undefined, defaultNamespace: string): string {
  if (resource && !resource.namespaced) return '';
  return run.desired?.object.metadata.namespace || run.previous?.namespace || parseObjectKey(run.job.objectKey).namespace || defaultNamespace;
}

function withNamespace(object: KubernetesManifest, namespace: string): KubernetesManifest {
  if (!namespace) return object;
  return { ...object, metadata: { ...object.metadata, namespace } };
}
