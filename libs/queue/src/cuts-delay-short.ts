import { jobFlags, type ReconcileJob } from '@tidemark/contracts';
import type { SlotWrite } from './object-state';

/**
 * cutsDelayShort: a job may replace a delayed one (a backoff or a requeue interval) only when
 * it brings a new revision or a new removal, or a person or a cluster event asks to look now. A resync at an
 * unchanged revision leaves delays alone, so it cannot turn a backoff into a hot loop.
 */
export function cutsDelayShort(job: ReconcileJob, slot: SlotWrite): boolean {
  if (jobFlags(job).fresh) return true;
  // A removal is news even at the same revision: the object left its source (a Source whose
  // path changed, or a deleted Source), and must not wait out a requeue interval to be pruned.
  return slot.kind === 'written' && (slot.revisionChanged || slot.newlyRemoved);
}
