import type { EventInput } from '@tidemark/cluster';
import { findCondition, Reason } from '@tidemark/contracts';
import { prunedBy, type ReconcileRun } from '../run';
import type { KeptObject } from '../prune/guards';

/** deletionEvents: a Pruned event per object the deletion stage pruned, and the orphans; finalize emits them. */
export function deletionEvents(run: ReconcileRun): EventInput[] {
  if (!run.live) return [];
  const deletion = run.deletion;
  const pruned = prunedBy(deletion);
  const events: EventInput[] = pruned.deleted.map((entry) => ({ type: 'Normal' as const, reason: 'Pruned', message: `${entry.subject} pruned: ${run.desired ? 'its owner was deleted by hand' : 'it was removed from Git'}` }));
  // An orphan is said once, when it happens, not on every run that finds it again.
  const alreadyOrphaned = findCondition(run.previous?.conditions, 'Ready')?.reason === Reason.Orphaned;
  if (deletion?.action === 'orphaned' && !alreadyOrphaned) events.push({ type: 'Warning', reason: Reason.Orphaned, message: `Removed from Git, but orphaned, not deleted: ${deletion.orphaned.reason}` });
  events.push(...keptEvents(pruned.kept));
  return events;
}

/** keptEvents: one Warning per object a prune guard kept, with the reason. */
export function keptEvents(kept: readonly KeptObject[]): EventInput[] {
  return kept.map((kept) => ({ type: 'Warning' as const, reason: Reason.Orphaned, message: `Not pruned: ${kept.reason}` }));
}
