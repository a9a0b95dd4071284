import { countOf, jsonRecordOf, listOf, oneOf, optional, recordOf, textOf, textsOf, type FieldRecord } from './record-fields';
import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';
import { hookPhases, type HookDeletePolicy, type HookPhase } from '../hook';

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

/** readPreviewReport reads one ref's report; undefined when there is none (or it expired, or it is not a report). */
export async function readPreviewReport(redis: RedisClient, keys: RecordKeys, source: string, ref: string): Promise<PreviewReport | undefined> {
  return parsePreviewReport(await redis.get(keys.preview(source, ref)));
}

const previewStates: readonly PreviewState[] = ['queued', 'running', 'done', 'failed'];
const previewTriggers: readonly PreviewTrigger[] = ['request', 'webhook'];
const previewActions: readonly PreviewAction[] = ['created', 'configured', 'unchanged', 'deleted', 'invalid', 'skipped'];
const hookDeletePolicies: readonly HookDeletePolicy[] = ['before-hook-creation', 'hook-succeeded', 'hook-failed'];
const nameLength = 253;
const timeLength = 64;

/**
 * parsePreviewReport reads a stored report field by field (see record-fields.ts); undefined for one
 * that is larger than any writer stores or lacks its source, ref, state or request time. A change or
 * hook missing what the dashboard shows is dropped; the live and desired values of a field are kept
 * as stored, since they are shown as JSON and never merged into another object.
 */
export function parsePreviewReport(raw: string | null | undefined): PreviewReport | undefined {
  if (raw && raw.length > maxPreviewReportBytes) return undefined;
  const value = jsonRecordOf(raw);
  if (!value) return undefined;
  const source = textOf(value.source, nameLength);
  const ref = textOf(value.ref, 255);
  const state = oneOf(value.state, previewStates);
  const requestedAt = textOf(value.requestedAt, timeLength);
  if (source === undefined || ref === undefined || state === undefined || requestedAt === undefined) return undefined;
  return {
    source, ref, state, requestedAt, changes: listOf(value.changes, parsePreviewChange) ?? [],
    ...optional('trigger', oneOf(value.trigger, previewTriggers)),
    ...optional('pullRequest', parsePullRequest(value.pullRequest)),
    ...optional('revision', textOf(value.revision, 128)),
    ...optional('baseRevision', textOf(value.baseRevision, 128)),
    ...optional('finishedAt', textOf(value.finishedAt, timeLength)),
    ...optional('error', textOf(value.error)),
    ...optional('unreachable', listOf(value.unreachable, parseUnreachable)),
    ...optional('hooks', listOf(value.hooks, parsePreviewHook)),
    ...optional('blastRadius', parseBlastRadius(value.blastRadius)),
    ...optional('truncated', parseTruncated(value.truncated)),
    ...optional('decryptedUnits', textsOf(value.decryptedUnits, 1024)),
  };
}

function parsePullRequest(value: unknown): PreviewPullRequest | undefined {
  const pull = recordOf(value);
  const number = countOf(pull?.number);
  if (!pull || number === undefined || !Number.isInteger(number) || number < 1) return undefined;
  const url = textOf(pull.url, 2048);
  return { number, ...optional('url', url && /^https?:\/\//.test(url) ? url : undefined), ...optional('title', textOf(pull.title, 512)) };
}

function parseUnreachable(value: unknown): { cluster: string; message: string } | undefined {
  const entry = recordOf(value);
  const cluster = textOf(entry?.cluster, nameLength);
  const message = textOf(entry?.message);
  return cluster === undefined || message === undefined ? undefined : { cluster, message };
}

/** objectNameOf reads the fields that name a Kubernetes object on a cluster, or undefined. */
function objectNameOf(entry: FieldRecord): { cluster: string; objectKey: string; kind: string; namespace: string; name: string } | undefined {
  const cluster = textOf(entry.cluster, nameLength);
  const objectKey = textOf(entry.objectKey, 1024);
  const kind = textOf(entry.kind, nameLength);
  const namespace = textOf(entry.namespace, nameLength);
  const name = textOf(entry.name, nameLength);
  if (cluster === undefined || objectKey === undefined || kind === undefined || namespace === undefined || name === undefined) return undefined;
  return { cluster, objectKey, kind, namespace, name };
}

function parsePreviewChange(value: unknown): PreviewChange | undefined {
  const entry = recordOf(value);
  const named = entry && objectNameOf(entry);
  const apiVersion = textOf(entry?.apiVersion, nameLength);
  const action = oneOf(entry?.action, previewActions);
  if (!entry || !named || apiVersion === undefined || action === undefined) return undefined;
  return {
    ...named, apiVersion, action,
    ...optional('path', textOf(entry.path, 4096)),
    ...optional('line', countOf(entry.line)),
    ...optional('message', textOf(entry.message)),
    ...optional('fields', listOf(entry.fields, parsePreviewField)),
    ...optional('desired', recordOf(entry.desired) as Record<string, unknown> | undefined),
    ...optional('live', recordOf(entry.live) as Record<string, unknown> | undefined),
  };
}

function parsePreviewField(value: unknown): PreviewField | undefined {
  const entry = recordOf(value);
  const path = textOf(entry?.path, 4096);
  if (!entry || path === undefined) return undefined;
  return { path, ...optional('live', entry.live), ...optional('desired', entry.desired), ...optional('overwrites', textOf(entry.overwrites, 256)) };
}

function parsePreviewHook(value: unknown): PreviewHook | undefined {
  const entry = recordOf(value);
  const named = entry && objectNameOf(entry);
  const phase = oneOf(entry?.phase, hookPhases);
  const weight = entry?.weight;
  if (!entry || !named || phase === undefined || typeof weight !== 'number' || !Number.isFinite(weight)) return undefined;
  const deletePolicies = listOf(entry.deletePolicies, (policy) => oneOf(policy, hookDeletePolicies)) ?? [];
  return { ...named, phase, weight, deletePolicies, ...optional('path', textOf(entry.path, 4096)), ...optional('note', textOf(entry.note)) };
}

function parseBlastRadius(value: unknown): PreviewBlastRadius | undefined {
  const radius = recordOf(value);
  const counts = recordOf(radius?.counts);
  if (!radius || !counts) return undefined;
  return {
    clusters: textsOf(radius.clusters, nameLength) ?? [],
    namespaces: textsOf(radius.namespaces, nameLength) ?? [],
    kinds: textsOf(radius.kinds, nameLength) ?? [],
    counts: Object.fromEntries(previewActions.map((action) => [action, countOf(counts[action]) ?? 0])) as Record<PreviewAction, number>,
    flagged: textsOf(radius.flagged, 1024) ?? [],
  };
}

function parseTruncated(value: unknown): PreviewReport['truncated'] {
  const truncated = recordOf(value);
  const withoutObjects = countOf(truncated?.withoutObjects);
  const omitted = countOf(truncated?.omitted);
  return withoutObjects === undefined || omitted === undefined ? undefined : { withoutObjects, omitted };
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
