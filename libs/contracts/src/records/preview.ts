import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';
import type { HookDeletePolicy, HookPhase } from '../hook';

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

/** PreviewHook is a sync hook that merging the ref would run on one cluster, in its phase, by weight. */
export interface PreviewHook {
  cluster: string;
  objectKey: string;
  path?: string;
  kind: string;
  namespace: string;
  name: string;
  phase: HookPhase;
  weight: number;
  deletePolicies: HookDeletePolicy[];
  /** Set for a hook that will not run (a Helm hook with no moment in Tidemark, an unreadable one): why. */
  note?: string;
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
  /** queued: a preview job waits; running: a worker has it; done or failed: final. */
  state: PreviewState;
  /** Who asked: a person (dashboard, CLI, API) or a Git host's webhook for a pull request or a push. */
  trigger?: PreviewTrigger;
  /** The pull/merge request the webhook announced, when there is one. */
  pullRequest?: PreviewPullRequest;
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
  /** The sync hooks the ref would run, in the order they would run (they are not among `changes`). */
  hooks?: PreviewHook[];
  blastRadius?: PreviewBlastRadius;
  /**
   * Set when the report was cut to fit `maxPreviewReportBytes`: how many changes lost their
   * side-by-side objects (`desired`/`live`) and how many were left out entirely. The counts and
   * blast radius always cover every change.
   */
  truncated?: { withoutObjects: number; omitted: number };
  /** Folders of units with sops-encrypted files that changes come from: no pull-request comment unless the source is trusted. */
  decryptedUnits?: string[];
}

/** PreviewState is where a preview is: waiting for a worker, running, or finished. */
export type PreviewState = 'queued' | 'running' | 'done' | 'failed';

/** PreviewTrigger says who asked for a preview. */
export type PreviewTrigger = 'request' | 'webhook';

/** PreviewPullRequest is the pull/merge request a preview is for, as its webhook named it. */
export interface PreviewPullRequest {
  number: number;
  /** Its page on the Git host (checked to be http(s)). */
  url?: string;
  title?: string;
}

/** maxPreviewReportBytes bounds one stored report (JSON): a big change set keeps its counts, not every object. */
export const maxPreviewReportBytes = 1024 * 1024;

/**
 * boundPreviewReport returns the report cut to at most `maxBytes` of JSON: first the side-by-side
 * objects go (largest first), then the last changes; `truncated` says how many of each.
 */
export function boundPreviewReport(report: PreviewReport, maxBytes = maxPreviewReportBytes): PreviewReport {
  const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
  if (size(report) <= maxBytes) return report;
  const changes = report.changes.map((change) => ({ change, bytes: size(change) }));
  let total = size({ ...report, changes: [], truncated: { withoutObjects: changes.length, omitted: changes.length } }) + changes.reduce((sum, entry) => sum + entry.bytes + 1, 0);
  let withoutObjects = 0;
  for (const entry of [...changes].sort((a, b) => b.bytes - a.bytes)) {
    if (total <= maxBytes) break;
    if (entry.change.desired === undefined && entry.change.live === undefined) continue;
    const { desired: _desired, live: _live, ...kept } = entry.change;
    const bytes = size(kept);
    total -= entry.bytes - bytes;
    Object.assign(entry, { change: kept, bytes });
    withoutObjects += 1;
  }
  let omitted = 0;
  while (total > maxBytes && changes.length > 0) {
    total -= changes.pop()!.bytes + 1;
    omitted += 1;
  }
  return { ...report, changes: changes.map((entry) => entry.change), truncated: { withoutObjects, omitted } };
}

/** previewTtlSeconds: a preview is kept for a week after it was last written. */
export const previewTtlSeconds = 7 * 24 * 3600;

/** writePreviewReport stores a report (cut to `maxPreviewReportBytes`) and lists it; nothing in it holds Secret data. */
export async function writePreviewReport(redis: RedisClient, keys: RecordKeys, report: PreviewReport): Promise<void> {
  await redis.multi()
    .set(keys.preview(report.source, report.ref), JSON.stringify(boundPreviewReport(report)), 'EX', previewTtlSeconds)
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
