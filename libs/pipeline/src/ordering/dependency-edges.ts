import type { DependencyEdges } from '@tidemark/contracts';
import type { ReconcileRun } from '../run';

/** At most this many edges are kept per record: a sync wave makes every object of a wave wait for all of the one before. */
const maxEdges = 50;

/** dependencyEdges is what the run's object waits for, as its status record keeps it; nothing when it waits for nothing. */
export function dependencyEdges(run: ReconcileRun): { dependencies?: DependencyEdges } {
  const all = run.ordering?.dependencies ?? [];
  if (all.length === 0) return {};
  const edges = all.slice(0, maxEdges).map(({ objectKey, description, reason, source, wave }) => ({
    objectKey, description, reason, ...(source ? { source } : {}), ...(wave !== undefined ? { wave } : {}),
  }));
  return { dependencies: { edges, total: all.length } };
}

/** keptDependencyEdges: a failed run records what it read; one that failed before reading its ordering keeps the last run's. */
export function keptDependencyEdges(run: ReconcileRun): { dependencies?: DependencyEdges } {
  if (run.ordering) return dependencyEdges(run);
  return run.previous?.dependencies ? { dependencies: run.previous.dependencies } : {};
}
