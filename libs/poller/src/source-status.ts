import type { Redis } from 'ioredis';
import type { PollResult } from '@tidemark/git-source';

/** SourceStatus is what the dashboard and metrics read about one source. It never holds a credential. */
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
  state?: 'ok' | 'error';
  /** The last poll's failure, when it failed. */
  error?: string;
  errorAt?: string;
  /** Which replica polls the source. */
  leader?: string;
}

/** sourceStatusKey is the Redis hash of a source's status. */
export function sourceStatusKey(keyPrefix: string, source: string): string {
  return `${keyPrefix}source:${source}`;
}

/** recordPoll writes a poll whose changes onChanges has taken. */
export async function recordPoll(redis: Redis, key: string, result: PollResult, leader: string): Promise<void> {
  const now = new Date().toISOString();
  const fields: Record<string, string | number> = {
    revision: result.revision, polledAt: now, durationMs: result.durationMs, fetchedObjects: result.fetchedObjects,
    changes: result.changes.length, sourceErrors: result.errors.length, state: 'ok', leader,
  };
  if (result.moved) fields.fetchedAt = now;
  await redis.multi().hset(key, fields).hdel(key, 'error', 'errorAt').exec();
}

/** recordHead writes the newest fetched revision, before its changes are handed on. */
export async function recordHead(redis: Redis, key: string, revision: string): Promise<void> {
  await redis.hset(key, 'head', revision);
}

/** recordFailure writes a failed poll, keeping the last good revision. */
export async function recordFailure(redis: Redis, key: string, error: unknown, durationMs: number, leader: string): Promise<void> {
  const now = new Date().toISOString();
  await redis.hset(key, { state: 'error', error: scrubCredentials(error instanceof Error ? error.message : String(error)), errorAt: now, polledAt: now, durationMs, leader });
}

/** readSourceStatus reads a source's status hash (empty when the source was never polled). */
export async function readSourceStatus(redis: Redis, keyPrefix: string, source: string): Promise<SourceStatus> {
  const raw = await redis.hgetall(sourceStatusKey(keyPrefix, source));
  const numbers = ['durationMs', 'fetchedObjects', 'changes', 'sourceErrors'] as const;
  const status: SourceStatus = { ...raw } as SourceStatus;
  for (const field of numbers) if (raw[field] !== undefined) status[field] = Number(raw[field]);
  return status;
}

/** scrubCredentials removes user:password@ from any URL in a message, in case a library put one there. */
export function scrubCredentials(message: string): string {
  return message.replace(/(\w+:\/\/)[^/@\s]+@/g, '$1***@').slice(0, 2000);
}
