import { toReconcileFailure, type ChangeSetEntry } from '@tidemark/cluster';
import type { CustomResource } from '@tidemark/kinds';
import { clusterActions } from './cluster-actions';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import type { KindCondition, KindOutcome } from './stage-results';
import { subjectOf } from '../observe/subject';

/**
 * actStage lets the kind act on the cluster (ConfigWatcher restarts pods) and read figures off
 * what it owns (WebApp's readyReplicas). A plain manifest has neither.
 */
export async function actStage(run: ReconcileRun, deps: PipelineDependencies, defaulted: CustomResource | undefined, changes: readonly ChangeSetEntry[]): Promise<KindOutcome> {
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
