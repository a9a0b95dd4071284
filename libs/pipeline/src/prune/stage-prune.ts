import { toReconcileFailure } from '@tidemark/cluster';
import { TerminalError, type InventoryEntry } from '@tidemark/contracts';
import { pruneEntries } from './prune';
import type { PipelineDependencies } from '../dependencies';
import type { PruneResult, ReconcileRun } from '../run';
import type { AppliedObjects } from '../apply/apply-results';
import { pruneEmptyAnnotation, staleEntries } from '../render/stage-render';
import { subjectOf } from '../observe/subject';

/**
 * pruneStage deletes what the last run owned and this one no longer renders, and returns each
 * deletion as a 'deleted' change-set entry, with the objects a prune guard kept. A CR that now renders nothing would prune all it
 * rendered before: that takes the tidemark.dev/prune-empty opt-in.
 */
export async function pruneStage(run: ReconcileRun, deps: PipelineDependencies, before: readonly InventoryEntry[], applied: AppliedObjects): Promise<PruneResult> {
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
