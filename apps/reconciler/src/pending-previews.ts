import type { Logger } from 'pino';
import { messageOf, readPreviewReport, readRolloutRecord, type RecordKeys, type RedisClient } from '@tidemark/contracts';
import { requestPreview } from '@tidemark/preview';
import type { PreviewQueue } from '@tidemark/queue';

export interface PendingPreviewsOptions {
  redis: RedisClient;
  keys: RecordKeys;
  log: Logger;
}

/**
 * PendingPreviews asks for a preview of each revision a rollout holds for an operator (a manual
 * sync, or a wave's approval), so the dashboard shows what syncing it would do next to the sync
 * button. It is told of the driver's notices; the preview queue is attached once it is open, and
 * a revision that started to wait before then is asked for at that moment. The preview is of the
 * commit itself (ref = its 40-hex id), dry-run on the live clusters; nothing is written to them.
 */
export class PendingPreviews {
  private queue: Pick<PreviewQueue, 'enqueue'> | undefined;
  private readonly early = new Set<string>();

  constructor(private readonly options: PendingPreviewsOptions) {}

  /** attach gives the preview queue (a process that polls opens it; none elsewhere) and asks for what waited meanwhile. */
  attach(previews: { queue: Pick<PreviewQueue, 'enqueue'> } | undefined): void {
    if (!previews) return;
    this.queue = previews.queue;
    for (const source of this.early) void this.request(source);
    this.early.clear();
  }

  /** notice is the driver's onNotice: a revision that starts to wait for an operator is previewed. */
  notice(source: string, kind: string): void {
    if (kind !== 'waiting-approval') return;
    if (this.queue) void this.request(source);
    else this.early.add(source);
  }

  private async request(source: string): Promise<void> {
    const { redis, keys, log } = this.options;
    try {
      const record = await readRolloutRecord(redis, keys, source);
      if (record?.phase !== 'waiting-approval' || !this.queue) return;
      // A preview of this commit that is there already (one wave's approval after another) is not made again.
      if (await readPreviewReport(redis, keys, source, record.revision)) return;
      const queue = this.queue;
      await requestPreview(redis, keys, (job) => queue.enqueue(job), { source, ref: record.revision, revision: record.revision, trigger: 'request', requestedAt: new Date().toISOString() });
      log.info({ source, revision: record.revision }, 'a pending revision is previewed');
    } catch (error) {
      log.warn({ source, err: messageOf(error) }, 'could not ask for the preview of a pending revision');
    }
  }
}
