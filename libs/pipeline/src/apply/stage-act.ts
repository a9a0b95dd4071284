import { toReconcileFailure, applyObject, deleteObject, getObject, listObjects, type ChangeSetEntry, type ClusterConnection } from '@tidemark/cluster';
import type { CustomResource, ClusterActions } from '@tidemark/kinds';
import { groupOf, type KubernetesManifest } from '@tidemark/contracts';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import type { KindCondition, KindOutcome } from './apply-results';
import { subjectOf } from '../observe/subject';

/** ActRun is the part of the run act reads: the kind, both connections of the source's identity and the last kind status. */
export type ActRun = Pick<ReconcileRun, 'ref' | 'stage' | 'connection' | 'actionsConnection' | 'plugin' | 'object' | 'live' | 'previous'>;

/** ActDependencies is what act reads: the clock. */
export type ActDependencies = Pick<PipelineDependencies, 'now'>;

/**
 * actStage lets the kind act on the cluster (ConfigWatcher restarts pods) and read figures off
 * what it owns (WebApp's readyReplicas). A plain manifest has neither.
 */
export async function actStage(run: ActRun, deps: ActDependencies, defaulted: CustomResource | undefined, changes: readonly ChangeSetEntry[]): Promise<KindOutcome> {
  run.stage = 'act';
  const previousStatus = run.previous?.kindStatus ?? {};
  if (!run.plugin || !defaulted) return { kindStatus: {}, kindConditions: [] };
  let kindStatus: Record<string, unknown> = {};
  let kindConditions: KindCondition[] = [];
  try {
    if (run.plugin.act) {
      const actions = clusterActions(run.connection, run.actionsConnection);
      const result = await run.plugin.act({ object: defaulted, previousStatus, cluster: actions, now: deps.now?.() ?? new Date() });
      kindStatus = { ...previousStatus, ...(result.status as Record<string, unknown>) };
      kindConditions = result.conditions ?? [];
    }
  } catch (error) {
    throw toReconcileFailure(error, `act ${subjectOf(run)}`);
  }
  if (run.plugin.observeStatus) kindStatus = { ...kindStatus, ...(run.plugin.observeStatus(changes.map((entry) => entry.object)) as Record<string, unknown>) };
  return { kindStatus, kindConditions };
}

/**
 * clusterActions gives a kind the small read-and-act surface it may use. Partial patches go
 * through a second field manager: under Tidemark's main manager, applying a partial object
 * would release every field the full apply owns.
 */
export function clusterActions(reader: ClusterConnection, patcher: ClusterConnection): ClusterActions {
  return {
    get: (apiVersion, kind, namespace, name) => getObject(reader, { apiVersion, kind, namespace, name }),
    list: (apiVersion, kind, namespace, labelSelector) => listObjects(reader, apiVersion, kind, namespace, labelSelector),
    delete: async (object: KubernetesManifest) => {
      await deleteObject(reader, { group: groupOf(object.apiVersion), kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name });
    },
    applyPatch: async (object: KubernetesManifest) => {
      await applyObject(patcher, object);
    },
  };
}
