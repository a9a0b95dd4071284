import { applyChangeSet, applyWithChangeSet, toReconcileFailure } from '@tidemark/cluster';
import type { PipelineDependencies } from './dependencies';
import { driftCheck } from './drift-check';
import type { ReconcileRun } from './run';
import type { AppliedObjects } from './stage-results';
import { customResourceToApply } from './stage-validate';
import { inventoryEntry } from './tracking';

/**
 * applyStage applies the CR (for a kind) and the rendered objects with server-side apply in
 * dependency order, healing or reporting drift as each object's policy says.
 */
export async function applyStage(run: ReconcileRun, deps: PipelineDependencies): Promise<AppliedObjects> {
  run.stage = 'apply';
  const drift = driftCheck(run, deps);
  try {
    let live = run.live;
    if (run.plugin && run.object) live = (await applyWithChangeSet(run.connection, customResourceToApply(run), drift.options)).object;
    const changes = await applyChangeSet(run.connection, run.rendered, drift.options);
    if (!run.plugin) live = changes[0]?.object ?? live;
    return {
      live,
      changes,
      inventory: run.plugin ? run.rendered.map(inventoryEntry) : [],
      drift: { healed: drift.healed, reported: drift.reported },
    };
  } catch (error) {
    throw toReconcileFailure(error, `apply ${run.job.objectKey}`);
  }
}
