import { NotReadyError, isStalled, parseObjectKey, type KubernetesManifest } from '@tidemark/contracts';
import { getByResource, type ApiResource } from '@tidemark/cluster';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';
import { specHash } from './hash';

/**
 * fetchStage reads the desired object from Git at the job's revision, the live object from the
 * cluster and the last status. A suspended object, and a stalled object whose spec did not
 * change, are skipped.
 */
export async function fetchStage(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  run.stage = 'fetch';
  const { job } = run;
  run.previous = await deps.statusStore.get(job.cluster, job.objectKey);
  if (run.previous?.suspended) {
    run.skipped = true;
    return;
  }
  run.desired = await deps.desired.readObject(job.source, job.revision, job.objectKey, job.cluster);
  const apiVersion = run.desired?.object.apiVersion ?? run.previous?.apiVersion;
  if (!apiVersion) return; // Neither in Git nor ever reconciled: nothing to do.
  run.plugin = deps.kinds.pluginFor(apiVersion, run.ref.kind);
  const resource = await resourceOrUndefined(run, apiVersion);
  const namespace = namespaceFor(run, resource, deps.options?.defaultNamespace ?? 'default');
  if (run.desired) {
    run.specHash = specHash(run.desired.object);
    run.object = withNamespace(run.desired.object, namespace);
  }
  if (resource) run.live = await getByResource(run.connection, resource, namespace || undefined, run.ref.name);
  run.skipped = stalledAtSameSpec(run);
}

/** stalledAtSameSpec: a terminal failure is not retried until the spec changes (or a person asks). */
function stalledAtSameSpec(run: ReconcileRun): boolean {
  if (run.job.reason === 'manual' || !run.specHash) return false;
  return isStalled(run.previous?.conditions) && run.previous?.specHash === run.specHash;
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
