import { boundPreviewReport, previewTtlSeconds, type PreviewJob, type PreviewReport, type RecordKeys, type RedisClient } from '@tidemark/contracts';

// The preview report's writers. Its format and parser live in contracts (the dashboard and the CLI
// read it); every write is here: the worker's (running, done, failed) and the request's (queued).

/** writePreviewReport stores a report (cut to `maxPreviewReportBytes`) and lists it; nothing in it holds Secret data. */
export async function writePreviewReport(redis: RedisClient, keys: RecordKeys, report: PreviewReport): Promise<void> {
  await redis.multi()
    .set(keys.preview(report.source, report.ref), JSON.stringify(boundPreviewReport(report)), 'EX', previewTtlSeconds)
    .zadd(keys.previews, Date.now(), `${report.source}/${report.ref}`)
    .exec();
}

// Writes the queued report unless the stored one is for this request or a newer one: a worker
// that already took the job (running, done, failed) is never set back to queued.
const markQueuedScript = `
local raw = redis.call('GET', KEYS[1])
if raw then
  local ok, current = pcall(cjson.decode, raw)
  if ok and type(current) == 'table' and type(current['requestedAt']) == 'string' and current['requestedAt'] >= ARGV[2] then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[3]))
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
return 1
`;

/** PreviewEnqueue is the preview queue's enqueue (libs/queue's PreviewQueue). */
export type PreviewEnqueue = (job: PreviewJob) => Promise<{ status: 'queued' | 'merged'; jobId: string }>;

/**
 * requestPreview enqueues a preview and shows it as queued. BullMQ adds a job in its own script, so
 * the two cannot share one MULTI; the queued write is one compare-and-set script after the enqueue
 * (see markQueuedScript), so whichever order the worker and the request write in, the report ends
 * as the worker left it. A request merged into one that waits writes nothing.
 */
export async function requestPreview(redis: RedisClient, keys: RecordKeys, enqueue: PreviewEnqueue, job: PreviewJob): Promise<{ status: 'queued' | 'merged'; jobId: string }> {
  const queued = await enqueue(job);
  if (queued.status === 'queued') await markPreviewQueued(redis, keys, job);
  return queued;
}

/** markPreviewQueued stores a request's queued report unless one for it (or a newer request) is there; true when it wrote. */
export async function markPreviewQueued(redis: RedisClient, keys: RecordKeys, job: PreviewJob): Promise<boolean> {
  const report: PreviewReport = {
    source: job.source, ref: job.ref, state: 'queued', trigger: job.trigger, requestedAt: job.requestedAt, changes: [],
    ...(job.pullRequest ? { pullRequest: job.pullRequest } : {}),
  };
  const written = await redis.eval(markQueuedScript, 2, keys.preview(job.source, job.ref), keys.previews,
    JSON.stringify(report), job.requestedAt, String(previewTtlSeconds), String(Date.now()), `${job.source}/${job.ref}`);
  return written === 1;
}
