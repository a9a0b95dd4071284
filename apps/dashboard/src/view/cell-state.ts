import { findCondition, type ObjectStatus } from '@tidemark/contracts';

/** CellState is the one-word summary of an object on a cluster, in order of urgency. */
export type CellState = 'Stalled' | 'Failed' | 'Waiting' | 'Reconciling' | 'Ready' | 'Unknown';

/** ConditionFilter is what the condition filter and the overview counts select on. */
export type ConditionFilter = CellState | 'Drifted' | 'Suspended';

export const conditionFilters: readonly ConditionFilter[] = ['Ready', 'Reconciling', 'Waiting', 'Stalled', 'Failed', 'Drifted', 'Suspended', 'Unknown'];

/** CellSummary is what a matrix cell shows and what live updates carry. */
export interface CellSummary {
  state: CellState;
  drifted: boolean;
  suspended: boolean;
  generation?: number;
  observedGeneration?: number;
  /** Ready's reason, for a tooltip. */
  reason?: string;
  updatedAt: string;
}

/**
 * cellStateOf reads the conditions and the failure the pipeline writes: Stalled wins, then the
 * last run's failure (waiting for a dependency, or failed and retried), then Reconciling, then
 * Ready. Ready=False without Reconciling is a failure waiting for a retry.
 */
export function cellStateOf(status: Pick<ObjectStatus, 'conditions' | 'failure'>): CellState {
  const conditions = status.conditions;
  if (findCondition(conditions, 'Stalled')?.status === 'True') return 'Stalled';
  if (status.failure) return status.failure.category === 'waiting' ? 'Waiting' : 'Failed';
  if (findCondition(conditions, 'Reconciling')?.status === 'True') return 'Reconciling';
  const ready = findCondition(conditions, 'Ready')?.status;
  if (ready === 'True') return 'Ready';
  return ready === 'False' ? 'Failed' : 'Unknown';
}

/** isDrifted: drift items are recorded, or the Drifted condition says so. */
export function isDrifted(status: Pick<ObjectStatus, 'conditions' | 'drift'>): boolean {
  return (status.drift?.length ?? 0) > 0 || findCondition(status.conditions, 'Drifted')?.status === 'True';
}

export function summarizeCell(status: ObjectStatus): CellSummary {
  const summary: CellSummary = {
    state: cellStateOf(status),
    drifted: isDrifted(status),
    suspended: status.suspended === true,
    updatedAt: status.updatedAt,
  };
  if (status.generation !== undefined) summary.generation = status.generation;
  if (status.observedGeneration !== undefined) summary.observedGeneration = status.observedGeneration;
  const reason = findCondition(status.conditions, 'Ready')?.reason;
  if (reason !== undefined) summary.reason = reason;
  return summary;
}

/** matchesCondition tells whether a cell counts under a condition filter. */
export function matchesCondition(cell: CellSummary, filter: ConditionFilter): boolean {
  if (filter === 'Drifted') return cell.drifted;
  if (filter === 'Suspended') return cell.suspended;
  return cell.state === filter;
}
