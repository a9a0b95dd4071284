import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';

/** PreviewAction is what merging a ref would do to one object on one cluster. */
export type PreviewAction = 'created' | 'configured' | 'unchanged' | 'deleted' | 'invalid' | 'skipped';

/** PreviewField is one field the change would set: Git's new value against the live one. */
export interface PreviewField {
  /** JSON pointer. */
  path: string;
  /** The live value, or undefined when the field is new. Secrets: '[redacted]'. */
  live?: unknown;
  /** The value after the change, or undefined when the change removes the field. Secrets: '[redacted]'. */
  desired?: unknown;
  /** The field manager that wrote the live value, when another manager's value would be overwritten. */
  overwrites?: string;
}

/** PreviewChange is one object on one cluster: its action, field-level diff, and the API server's word. */
export interface PreviewChange {
  cluster: string;
  /** The Git object it comes from (a WebApp's Deployment names the WebApp). */
  objectKey: string;
  /** File and line in Git, at the previewed ref (for deletions: where it was). */
  path?: string;
  line?: number;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  action: PreviewAction;
  /** invalid: the API server's message; skipped: why; deleted: what removes it. */
  message?: string;
  fields?: PreviewField[];
  /** The object as it would be and as it is, for the side-by-side view: no managedFields or status; Secret values redacted. */
  desired?: Record<string, unknown>;
  live?: Record<string, unknown>;
}

/** PreviewBlastRadius says how far a change reaches, and flags what needs a careful look. */
export interface PreviewBlastRadius {
  clusters: string[];
  namespaces: string[];
  kinds: string[];
  counts: Record<PreviewAction, number>;
  /** RBAC and CRD changes, deleted Namespaces: each `cluster: Kind name — why`. */
  flagged: string[];
}

/** PreviewReport is one preview of a ref: what merging it would do on every cluster it targets. */
export interface PreviewReport {
  source: string;
  /** The ref as asked: a branch name or a commit id. */
  ref: string;
  state: 'running' | 'done' | 'failed';
  /** The commit previewed, and the source's revision it is compared with. */
  revision?: string;
  baseRevision?: string;
  requestedAt: string;
  finishedAt?: string;
  /** Why the preview failed as a whole (the ref does not exist, the source is unknown). */
  error?: string;
  /** Clusters that could not be asked, with why: their changes are missing from the report. */
  unreachable?: Array<{ cluster: string; message: string }>;
  changes: PreviewChange[];
  blastRadius?: PreviewBlastRadius;
}

/** previewTtlSeconds: a preview is kept for a week after it was last written. */
export const previewTtlSeconds = 7 * 24 * 3600;

/** writePreviewReport stores a report and lists it; nothing in it holds Secret data. */
export async function writePreviewReport(redis: RedisClient, keys: RecordKeys, report: PreviewReport): Promise<void> {
  await redis.multi()
    .set(keys.preview(report.source, report.ref), JSON.stringify(report), 'EX', previewTtlSeconds)
    .zadd(keys.previews, Date.now(), `${report.source}/${report.ref}`)
    .exec();
}

/** readPreviewReport reads one ref's report; undefined when there is none (or it expired). */
export async function readPreviewReport(redis: RedisClient, keys: RecordKeys, source: string, ref: string): Promise<PreviewReport | undefined> {
  const text = await redis.get(keys.preview(source, ref));
  return text ? (JSON.parse(text) as PreviewReport) : undefined;
}

/** listPreviews lists the newest previews, `{source, ref}`, dropping those whose report expired. */
export async function listPreviews(redis: RedisClient, keys: RecordKeys, limit = 50): Promise<Array<{ source: string; ref: string }>> {
  const members = await redis.zrevrange(keys.previews, 0, limit - 1);
  const listed = members.map((member) => {
    const slash = member.indexOf('/');
    return { source: member.slice(0, slash), ref: member.slice(slash + 1) };
  });
  const present = await Promise.all(listed.map(async (entry) => (await redis.exists(keys.preview(entry.source, entry.ref))) === 1));
  return listed.filter((_entry, index) => present[index]);
}
