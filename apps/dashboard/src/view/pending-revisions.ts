import { messageOf, readPreviewReport, type PreviewReport, type RecordKeys, type RedisClient, type RolloutRecord } from '@tidemark/contracts';
import { requestPreview } from '@tidemark/preview';
import type { PreviewQueue } from '@tidemark/queue';
import { DashboardError, ErrorCode, notFound } from '../api/dashboard-error';
import type { Principal } from '../auth/principal';
import { previewInScope } from '../auth/token-scope';
import type { RolloutActions } from './rollouts';

export interface PendingRevisionsOptions {
  redis: RedisClient;
  keys: RecordKeys;
  rollouts: RolloutActions;
  /** The preview queue: without it, a pending revision's preview can be read but not asked for (503). */
  previews: Pick<PreviewQueue, 'enqueue'>;
}

/** isPending: the rollout's revision waits for an operator (a manual sync, or a wave's approval). */
export function isPending(record: RolloutRecord): boolean {
  return record.phase === 'waiting-approval';
}

/**
 * PendingRevisions pairs each rollout's pending revision with its preview: the report of a
 * preview of that commit (ref = the 40-hex revision), which the reconciler asks for when the
 * revision starts to wait and an operator may ask for again. Nothing here writes to a cluster.
 */
export class PendingRevisions {
  constructor(private readonly options: PendingRevisionsOptions) {}

  /** previewsOf reads, for each pending rollout, its revision's preview report (absent: none yet, or expired). */
  async previewsOf(records: readonly RolloutRecord[], principal: Principal | undefined): Promise<Map<string, PreviewReport>> {
    const previews = new Map<string, PreviewReport>();
    for (const record of records.filter(isPending)) {
      if (!previewInScope(principal?.scope, record.source)) continue;
      const report = await readPreviewReport(this.options.redis, this.options.keys, record.source, record.revision).catch(() => undefined);
      if (report) previews.set(record.source, report);
    }
    return previews;
  }

  /** preview asks for a preview of a source's pending revision (the operator role is checked by the route). */
  async preview(source: string, principal: Principal | undefined): Promise<{ source: string; ref: string; status: 'queued' | 'merged' }> {
    if (!previewInScope(principal?.scope, source)) throw notFound(`a rollout of source ${source}`);
    const record = await this.options.rollouts.get(source);
    if (!isPending(record)) throw new DashboardError(ErrorCode.Conflict, 409, `Nothing of source ${source} is pending: its rollout is ${record.phase}.`);
    const job = { source, ref: record.revision, revision: record.revision, trigger: 'request' as const, requestedAt: new Date().toISOString() };
    const queued = await requestPreview(this.options.redis, this.options.keys, (checked) => this.options.previews.enqueue(checked), job).catch((error: unknown) => {
      throw new DashboardError(ErrorCode.QueueUnavailable, 503, messageOf(error), { cause: error });
    });
    return { source, ref: job.ref, status: queued.status };
  }
}
