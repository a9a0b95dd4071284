// The poller is the one writer of the SourceStatus record; its format and key live in contracts.
import { keptCommits, keptProblems, keptWarningLength, keptWarnings, scrubText, messageOf, type SourceCommit, type SourceProblem } from '@tidemark/contracts';
import type { PollResult } from '@tidemark/git-source';
import type { RedisClient } from '@tidemark/contracts';

/** PollRecordKeys name where a poll is recorded: the source's status hash and its commit list. */
export interface PollRecordKeys {
  status: string;
  commits: string;
}

/**
 * recordPoll writes a poll whose changes onChanges has taken: the revision and timings, what the
 * source follows, the head commit, the objects it declares, the first problems with file and
 * line; a moved poll also adds its commit to the source's commit list.
 */
export async function recordPoll(redis: RedisClient, keys: PollRecordKeys, result: PollResult, leader: string, ref?: string): Promise<void> {
  const now = new Date().toISOString();
  const fields: Record<string, string | number> = {
    revision: result.revision, polledAt: now, durationMs: result.durationMs, fetchedObjects: result.fetchedObjects,
    changes: result.changes.length, sourceErrors: result.errors.length,
    // Degraded while any file in Git cannot be read: the rest is applied, but not everything.
    state: result.errors.length > 0 ? 'degraded' : 'ok', leader,
    problems: JSON.stringify(result.errors.slice(0, keptProblems).map(({ path, line, code, message }): SourceProblem => (line === undefined ? { path, code, message } : { path, line, code, message }))),
    sourceWarnings: result.warnings?.length ?? 0,
    warnings: JSON.stringify((result.warnings ?? []).slice(0, keptWarnings).map(({ path, line, code, message }): SourceProblem => ({ path, ...(line === undefined ? {} : { line }), code, message: clip(message, keptWarningLength) }))),
  };
  if (result.moved) fields.fetchedAt = now;
  if (ref) fields.ref = ref;
  if (result.declaredObjects !== undefined) fields.declaredObjects = result.declaredObjects;
  if (result.commit) Object.assign(fields, { commitMessage: result.commit.message, commitAuthor: result.commit.author, commitTime: result.commit.time });
  const write = redis.multi().hset(keys.status, fields).hdel(keys.status, 'error', 'errorAt');
  if (result.moved && result.commit) {
    const commit: SourceCommit = { revision: result.revision, ...result.commit, fetchedAt: now };
    write.lpush(keys.commits, JSON.stringify(commit)).ltrim(keys.commits, 0, keptCommits - 1);
  }
  await write.exec();
}

function clip(message: string, length: number): string {
  return message.length > length ? `${message.slice(0, length - 1)}…` : message;
}

/** describeRef says what a source follows, e.g. "branch main", "tag v1.2.0", "semver ^1". */
export function describeRef(ref: Readonly<Record<string, string>> | undefined): string | undefined {
  const entry = ref ? Object.entries(ref)[0] : undefined;
  return entry ? `${entry[0]} ${entry[1]}` : undefined;
}

/** recordHead writes the newest fetched revision, before its changes are handed on. */
export async function recordHead(redis: RedisClient, key: string, revision: string): Promise<void> {
  await redis.hset(key, 'head', revision);
}

/** recordFailure writes a failed poll, keeping the last good revision. */
export async function recordFailure(redis: RedisClient, key: string, error: unknown, durationMs: number, leader: string): Promise<void> {
  const now = new Date().toISOString();
  await redis.hset(key, { state: 'error', error: scrubCredentials(messageOf(error)), errorAt: now, polledAt: now, durationMs, leader });
}

/** scrubCredentials removes credentials from a message (the one secret rule), in case a library put one there, and bounds it. */
export function scrubCredentials(message: string): string {
  return scrubText(message).slice(0, 2000);
}

/** recordSuspended says a poll was skipped because the source is suspended. */
export async function recordSuspended(redis: RedisClient, key: string, leader: string): Promise<void> {
  await redis.hset(key, { state: 'suspended', polledAt: new Date().toISOString(), leader });
}
