import { findCondition, verdictOf, type ObjectStatus, type VerdictState } from '@tidemark/contracts';

/** CellState is the one-word summary of an object on a cluster, in order of urgency: its verdict. */
export type CellState = VerdictState;

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

/** cellStateOf is the state of the object's verdict (verdictOf, the one reading every consumer shares). */
export function cellStateOf(status: Pick<ObjectStatus, 'conditions' | 'failure'>): CellState {
  return verdictOf(status).state;
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
