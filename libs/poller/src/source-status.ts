// The poller is the one writer of the SourceStatus record; its format and key live in contracts.
import type { Redis } from 'ioredis';
import type { PollResult } from '@tidemark/git-source';

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

/** scrubCredentials removes user:password@ from any URL in a message, in case a library put one there. */
export function scrubCredentials(message: string): string {
  return message.replace(/(\w+:\/\/)[^/@\s]+@/g, '$1***@').slice(0, 2000);
}
