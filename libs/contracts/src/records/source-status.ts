import { jsonRecordOf, textOf } from './record-fields';
import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';

/**
 * SourceStatus is what the poller records about one source: the dashboard, the watches, cluster
 * recovery and the full resync read it. It never holds a credential. Written only by the poller.
 */
export interface SourceStatus {
  /** Last revision delivered to onChanges; a new leader diffs from it. */
  revision?: string;
  /** Newest revision fetched, recorded before its changes are delivered; what a woken object is compared with. */
  head?: string;
  /** When `revision` was first fetched (RFC 3339). */
  fetchedAt?: string;
  /** When the last poll ended, successful or not. */
  polledAt?: string;
  durationMs?: number;
  fetchedObjects?: number;
  changes?: number;
  /** Problems in the source at `revision` (broken files, duplicates). */
  sourceErrors?: number;
  /** ok; degraded while a file in Git cannot be read (see problems); error when the last poll failed; suspended while polls are skipped. */
  state?: 'ok' | 'degraded' | 'error' | 'suspended';
  /** An operator suspended the source (the dashboard's flag, written alone as sourceSuspendedField). */
  suspended?: boolean;
  /** The last poll's failure, when it failed. */
  error?: string;
  errorAt?: string;
  /** Which replica polls the source. */
  leader?: string;
  /** What the source follows, e.g. "branch main" (from its spec). */
  ref?: string;
  /** Kubernetes objects the source declares at `revision`. */
  declaredObjects?: number;
  /** The commit at `revision`: subject line, author name (never an e-mail), author time. */
  commitMessage?: string;
  commitAuthor?: string;
  commitTime?: string;
  /** The first problems in the source at `revision`, each with its file and line. */
  problems?: SourceProblem[];
  /** Parser and renderer warnings at `revision` (they hold nothing back, so the state stays ok). */
  sourceWarnings?: number;
  /** The first warnings, each with its file and line; messages cut to `keptWarningLength`. */
  warnings?: SourceProblem[];
}

/** SourceProblem is one broken file or object in a source, as the dashboard lists it. */
export interface SourceProblem {
  path: string;
  line?: number;
  code: string;
  message: string;
}

/** SourceCommit is a revision the poller fetched; the source's commit list holds the newest first. */
export interface SourceCommit {
  revision: string;
  /** Subject line. */
  message: string;
  author: string;
  /** Author time. */
  time: string;
  /** When the poller first fetched it. */
  fetchedAt: string;
}

/** The source status hash's field an operator sets to suspend polling; only the dashboard writes it, alone. */
export const sourceSuspendedField = 'suspended';

/** How many problems a source record keeps (the count, sourceErrors, is always complete). */
export const keptProblems = 50;
/** How many warnings a source record keeps (the count, sourceWarnings, is always complete). */
export const keptWarnings = 20;
/** Longest warning message a source record keeps: a tool's stderr line may be long. */
export const keptWarningLength = 500;
/** How many fetched commits a source keeps for its timeline. */
export const keptCommits = 30;

const numericFields = ['durationMs', 'fetchedObjects', 'changes', 'sourceErrors', 'sourceWarnings', 'declaredObjects'] as const;
const textFields = ['revision', 'head', 'fetchedAt', 'polledAt', 'error', 'errorAt', 'leader', 'ref', 'commitMessage', 'commitAuthor', 'commitTime'] as const;

/** parseSourceStatus checks a source status hash field by field; unknown fields are dropped. */
export function parseSourceStatus(raw: Record<string, string>): SourceStatus {
  const status: SourceStatus = {};
  for (const field of textFields) if (raw[field] !== undefined) status[field] = raw[field];
  for (const field of numericFields) {
    const value = Number(raw[field]);
    if (raw[field] !== undefined && Number.isFinite(value)) status[field] = value;
  }
  if (raw.state === 'ok' || raw.state === 'degraded' || raw.state === 'error' || raw.state === 'suspended') status.state = raw.state;
  if (raw[sourceSuspendedField] === 'true') status.suspended = true;
  if (raw.problems !== undefined) status.problems = parseProblems(raw.problems);
  if (raw.warnings !== undefined) status.warnings = parseProblems(raw.warnings);
  return status;
}

function parseProblems(text: string): SourceProblem[] {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value.filter((entry): entry is SourceProblem => typeof entry === 'object' && entry !== null && typeof entry.path === 'string' && typeof entry.message === 'string' && typeof entry.code === 'string');
  } catch {
    return [];
  }
}

/** parseSourceCommit reads one entry of a source's commit list; undefined for anything that is not one. */
export function parseSourceCommit(raw: string | null | undefined): SourceCommit | undefined {
  const value = jsonRecordOf(raw);
  const revision = textOf(value?.revision, 128);
  const time = textOf(value?.time, 64);
  if (!value || revision === undefined || time === undefined) return undefined;
  return { revision, time, message: textOf(value.message, 200) ?? '', author: textOf(value.author, 100) ?? '', fetchedAt: textOf(value.fetchedAt, 64) ?? '' };
}

/** readSourceCommits lists the revisions the poller fetched, newest first; unreadable entries are dropped. */
export async function readSourceCommits(redis: RedisClient, keys: RecordKeys, source: string): Promise<SourceCommit[]> {
  const raw = await redis.lrange(keys.sourceCommits(source), 0, -1);
  return raw.flatMap((entry) => parseSourceCommit(entry) ?? []);
}

/** readSourceStatus reads a source's status hash (empty when the source was never polled). */
export async function readSourceStatus(redis: RedisClient, keys: RecordKeys, source: string): Promise<SourceStatus> {
  return parseSourceStatus(await redis.hgetall(keys.sourceStatus(source)));
}
