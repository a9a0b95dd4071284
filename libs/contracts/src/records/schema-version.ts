import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';

/**
 * redisSchemaVersion is the version of the Redis records and job envelopes this release writes.
 * 1 is every release before versions existed (main at 53f8326); 2 added the version itself; 3
 * keeps each target cluster's records under its cluster's hash tag on a Redis Cluster
 * (RecordKeys.clusterPrefix; moveClusterKeys moves an older release's).
 * Raise it when a record or job changes in a way an older release would misread.
 */
export const redisSchemaVersion = 3;

/**
 * reconcileJobVersion is the schema a job's envelope needs: the oldest release that reads it.
 * Schema 3 moved records, not jobs, so a job is named 2 unless it carries a flag (fresh, retry,
 * routine), which workers of schema 2 before the flags refuse. A worker of the previous release
 * leaves a job of a newer schema for 30 s at a time, so naming every job 3 let a job it kept
 * taking wait for minutes in a rolling upgrade (measured: one object of 12 over 240 s).
 */
export function reconcileJobVersion(job: { fresh?: boolean; retry?: boolean; routine?: boolean }): number {
  return job.fresh !== undefined || job.retry !== undefined || job.routine !== undefined ? 3 : 2;
}

/**
 * reconcileJobName is the BullMQ job name, which carries the job's schema version. The version
 * is in the name, not the payload: releases of schema 1 refuse a payload with a field they do
 * not know, so a versioned payload would be lost on an old worker during a rolling upgrade.
 */
export function reconcileJobName(version: number = redisSchemaVersion): string {
  return version <= 1 ? 'reconcile' : `reconcile.v${version}`;
}

/** jobSchemaVersion reads a job name's schema version; undefined for a name that is not a reconcile job. */
export function jobSchemaVersion(name: string): number | undefined {
  if (name === 'reconcile') return 1;
  const match = /^reconcile\.v([1-9][0-9]*)$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** SchemaTooNewError: Redis holds records of a newer release; this one must not run on them. */
export class SchemaTooNewError extends Error {
  readonly code = 'RedisSchemaTooNew';
  constructor(readonly found: number, readonly running: number, readonly where: string) {
    super(`Redis at prefix "${where}" holds records of schema ${found}, written by a newer Tidemark; this release reads schema ${running} and older. Downgrading is refused so that no record is misread: run the newer release again, or give this one an empty Redis or another prefix.`);
    this.name = 'SchemaTooNewError';
  }
}

// Atomically: refuse a newer stored version, else raise the stored one to ours; returns what was there (0: none).
const claimScript = `
local stored = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local running = tonumber(ARGV[1])
if stored > running then return stored end
if stored < running then redis.call('HSET', KEYS[1], 'version', ARGV[1], 'writtenBy', ARGV[2], 'at', ARGV[3]) end
return -stored`;

/**
 * claimRedisSchema records that a release of `running` schema works on this Redis, and throws
 * SchemaTooNewError when a newer release has already done so (a downgrade). An older or absent
 * version is raised: this release still reads and writes what the older one understands.
 */
export async function claimRedisSchema(redis: RedisClient, keys: RecordKeys, writer: string, running: number = redisSchemaVersion): Promise<{ previous: number }> {
  const answer = Number(await redis.eval(claimScript, 1, keys.schema, String(running), writer, new Date().toISOString()));
  if (answer > 0) throw new SchemaTooNewError(answer, running, keys.prefix);
  return { previous: -answer };
}

/** SchemaNotClaimedError: an agent found Redis without the hub's claim of its own schema. */
export class SchemaNotClaimedError extends Error {
  readonly code = 'RedisSchemaNotClaimed';
  constructor(readonly found: number, readonly running: number, readonly where: string) {
    super(`Redis at prefix "${where}" holds ${found === 0 ? 'no schema claim' : `records of schema ${found}`}, and this agent writes schema ${running}: start (or upgrade) the hub first, which claims the schema; an agent's Redis user may only read it.`);
    this.name = 'SchemaNotClaimedError';
  }
}

/**
 * expectRedisSchema is an agent's claim: it reads the schema the hub claimed and refuses to run on
 * any other (a newer one: SchemaTooNewError; none or an older one: SchemaNotClaimedError), since its
 * Redis user may not write the claim and the hub names the records it reads by that schema.
 */
export async function expectRedisSchema(redis: RedisClient, keys: RecordKeys, running: number = redisSchemaVersion): Promise<{ previous: number }> {
  const found = Number(await redis.hget(keys.schema, 'version') ?? '0') || 0;
  if (found > running) throw new SchemaTooNewError(found, running, keys.prefix);
  if (found < running) throw new SchemaNotClaimedError(found, running, keys.prefix);
  return { previous: found };
}
