import type { PipelineDependencies } from './dependencies';
import { recordEvents } from './events';
import type { ReconcileRun } from './run';

/** reportDeletion emits a Pruned event per object the deletion stage pruned; finalizeStatus records it. */
export async function reportDeletion(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  const about = run.live;
  if (!about) return;
  const events = run.pruned.map((entry) => ({ type: 'Normal' as const, reason: 'Pruned', message: `${entry.subject} pruned: ${run.desired ? 'its owner was deleted by hand' : 'it was removed from Git'}` }));
  await recordEvents(run, deps, about, events);
}
