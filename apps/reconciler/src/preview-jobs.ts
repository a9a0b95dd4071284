import type { Logger } from 'pino';
import { messageOf, type PreviewReport, type RecordKeys, type RedisClient } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';
import type { PreviewRenderDependencies } from '@tidemark/pipeline';
import type { ClusterTarget } from '@tidemark/placement';
import { openGitPreviewHead, runPreviewJob, type PreviewSourceHandle } from '@tidemark/preview';
import { PreviewQueue, PreviewWorkers, type PreviewQueueOptions, type RedisConnection } from '@tidemark/queue';

/** PreviewJobsOptions: the reconciler's sources, clusters and read-only pipeline parts. */
export interface PreviewJobsOptions {
  connection: RedisConnection;
  queuePrefix: string;
  hashTag: boolean;
  redis: RedisClient;
  keys: RecordKeys;
  sources: ReadonlyMap<string, GitSource>;
  clusters: readonly ClusterTarget[];
  render: Omit<PreviewRenderDependencies, 'desired'>;
  /** Each preview fetches its ref into a folder here, removed when it ends. */
  cacheRoot: string;
  log: Logger;
  /** Puts a pull request's finished preview on it as a comment (the source's Git host). @defaultValue none */
  commentOn?: (report: PreviewReport) => Promise<void>;
}

/**
 * startPreviewJobs runs queued previews in this worker process: each reads the ref from the
 * source's own repository (same credentials) into a folder of its own, dry-runs on the clusters,
 * and stores the report. Nothing is written to a cluster.
 */
export async function startPreviewJobs(options: PreviewJobsOptions): Promise<{ stop(): Promise<void> }> {
  // No cluster to dry-run on (an agent): take no preview job, so a process that has some does.
  if (options.clusters.length === 0) return { stop: async () => undefined };
  const { log } = options;
  const workers = new PreviewWorkers({
    connection: options.connection, prefix: options.queuePrefix, hashTag: options.hashTag,
    onError: (error, job) => log.warn({ source: job.source, ref: job.ref, err: error.message }, 'preview failed; the queue retries it'),
  });
  const sourceFor = (name: string): PreviewSourceHandle | undefined => {
    const source = options.sources.get(name);
    return source ? { base: source, openHead: (ref) => openGitPreviewHead(source, ref, options.cacheRoot) } : undefined;
  };
  await workers.start(async (job) => {
    const report = await runPreviewJob(job, { redis: options.redis, keys: options.keys, sourceFor, clusters: options.clusters, render: options.render });
    log.info({ source: job.source, ref: job.ref, state: report.state, changes: report.changes.length, error: report.error }, 'preview finished');
    // The comment is best effort: a Git host that fails never fails (or repeats) the preview.
    await options.commentOn?.(report).catch((error: unknown) => log.warn({ source: job.source, ref: job.ref, err: messageOf(error) }, 'preview comment failed'));
  });
  return { stop: () => workers.close() };
}

/** WebhookPreviews: the preview queue, and the branch each source applies. */
export interface WebhookPreviews {
  queue: PreviewQueue;
  followedBranch(source: string): string | undefined;
}

/**
 * startWebhookPreviews opens the preview queue for the webhook receiver; `followedBranch` is the
 * branch a source applies, which its poll covers and which is not previewed. Close closes the queue.
 */
export async function startWebhookPreviews(polling: boolean, options: PreviewQueueOptions, sources: ReadonlyMap<string, GitSource>): Promise<(WebhookPreviews & { close(): Promise<void> }) | undefined> {
  if (!polling) return undefined; // Only a process that polls receives webhooks.
  const queue = new PreviewQueue(options);
  await queue.start();
  const followedBranch = (source: string) => {
    const ref = sources.get(source)?.spec.ref;
    return ref && 'branch' in ref ? ref.branch : undefined;
  };
  return { queue, followedBranch, close: () => queue.close() };
}
