import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { RecordKeys } from './record-keys';
import type { RedisClient } from './redis-client';

/**
 * Records of one target cluster that releases of schema 2 and older kept under the deployment's
 * shared tag (`{tidemark}:status:<cluster>`), and where they live now (RecordKeys.clusterPrefix).
 * Each entry reads the part of a legacy name after `<prefix>:` and gives the new name, or
 * undefined when the name is not its family's (or names no valid cluster).
 */
const movedFamilies: ((rest: string, keys: RecordKeys) => string | undefined)[] = [
  clusterOnly('status:', (keys, cluster) => keys.objectStatus(cluster)),
  clusterOnly('suspended:', (keys, cluster) => keys.suspended(cluster)),
  clusterOnly('cluster-health:', (keys, cluster) => keys.clusterHealth(cluster)),
  clusterOnly('cluster-freeze:', (keys, cluster) => keys.clusterFreeze(cluster)),
  clusterOnly('tree:', (keys, cluster) => keys.liveChildren(cluster)),
  clusterOnly('cluster-series:', (keys, cluster) => keys.clusterSeries(cluster)),
  clusterOnly('agent-heartbeat:', (keys, cluster) => keys.agentHeartbeat(cluster)),
  clusterFirst('window-pass:', (keys, cluster, objectKey) => keys.syncWindowPass(cluster, objectKey)),
  clusterFirst('history:', (keys, cluster, objectKey) => keys.history(cluster, objectKey)),
  clusterFirst('waiters:', (keys, cluster, token) => keys.dependencyWaiters(cluster, token)),
  clusterLast('prune-hold:', 0, (keys, cluster, [source]) => keys.pruneHold(source!, cluster)),
  clusterLast('commit-status-open:', 0, (keys, cluster, [source]) => keys.commitStatusOpen(source!, cluster)),
  clusterLast('commit-status:', 1, (keys, cluster, [source, revision]) => keys.commitStatus(source!, revision!, cluster)),
  clusterLast('commit-clock:', 1, (keys, cluster, [source, revision]) => keys.commitClock(source!, revision!, cluster)),
];
// Leases (lease:health|watch|tree:<cluster>) are not moved: they expire within seconds, and a
// holder of the old name stops holding it when its release stops.

const clusterNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function clusterOnly(family: string, build: (keys: RecordKeys, cluster: string) => string) {
  return (rest: string, keys: RecordKeys) => {
    const cluster = rest.startsWith(family) ? rest.slice(family.length) : '';
    return clusterNamePattern.test(cluster) ? build(keys, cluster) : undefined;
  };
}

function clusterFirst(family: string, build: (keys: RecordKeys, cluster: string, tail: string) => string) {
  return (rest: string, keys: RecordKeys) => {
    if (!rest.startsWith(family)) return undefined;
    const [cluster = '', ...tail] = rest.slice(family.length).split(':');
    return clusterNamePattern.test(cluster) && tail.length > 0 ? build(keys, cluster, tail.join(':')) : undefined;
  };
}

/** clusterLast: `<family><source>[:<revision>]:<cluster>`; a source name may hold colons, a revision and a cluster may not. */
function clusterLast(family: string, fixed: number, build: (keys: RecordKeys, cluster: string, head: string[]) => string) {
  return (rest: string, keys: RecordKeys) => {
    if (!rest.startsWith(family)) return undefined;
    const parts = rest.slice(family.length).split(':');
    const cluster = parts.pop() ?? '';
    const fixedParts = parts.splice(parts.length - fixed, fixed);
    const source = parts.join(':');
    return clusterNamePattern.test(cluster) && source.length > 0 && fixedParts.length === fixed ? build(keys, cluster, [source, ...fixedParts]) : undefined;
  };
}

/**
 * movedName is where a record a release of schema 2 named `legacy` lives now, or undefined when
 * it stays (a shared record, a lease) or the deployment has no hash tag (names did not change).
 */
export function movedName(keys: RecordKeys, legacy: string): string | undefined {
  if (!keys.hashTagged || !legacy.startsWith(`${keys.prefix}:`)) return undefined;
  const rest = legacy.slice(keys.prefix.length + 1);
  for (const family of movedFamilies) {
    const name = family(rest, keys);
    if (name !== undefined) return name;
  }
  return undefined;
}

// On the new name's node: the copy (RESTOREd under a name in the new slot) becomes the record, or,
// when a newer release already wrote one, fills in what it lacks: hash fields and set or sorted
// set members it does not have, list entries after its own (older entries last); a string keeps
// the newer value. A hash field both hold as a JSON record with an `updatedAt` (ObjectStatus)
// keeps the later one: during a rolling upgrade an older worker may have run the object last.
// The copy is then removed.
const mergeScript = `
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('RENAME', KEYS[1], KEYS[2])
  return 1
end
local function updatedAt(text)
  local ok, record = pcall(cjson.decode, text)
  if ok and type(record) == 'table' and type(record.updatedAt) == 'string' then return record.updatedAt end
  return nil
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'hash' then
  local fields = redis.call('HGETALL', KEYS[1])
  for i = 1, #fields, 2 do
    if redis.call('HSETNX', KEYS[2], fields[i], fields[i + 1]) == 0 then
      local moved, kept = updatedAt(fields[i + 1]), updatedAt(redis.call('HGET', KEYS[2], fields[i]))
      if moved and kept and moved > kept then redis.call('HSET', KEYS[2], fields[i], fields[i + 1]) end
    end
  end
elseif kind == 'list' then
  for _, entry in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do redis.call('RPUSH', KEYS[2], entry) end
elseif kind == 'set' then
  for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do redis.call('SADD', KEYS[2], member) end
elseif kind == 'zset' then
  local scored = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
  for i = 1, #scored, 2 do redis.call('ZADD', KEYS[2], 'NX', scored[i + 1], scored[i]) end
end
redis.call('DEL', KEYS[1])
return 2
`;

// On the old name's node: remove the record only if nothing wrote it since it was copied (an
// older release still running); a changed one is copied again on the next pass.
const deleteIfUnchangedScript = `
if redis.call('DUMP', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

// Shared indexes whose members or fields name a cluster: each is split into the cluster's own.
// A member or field is removed from the old record only while it still holds what was copied.
const removeSetMemberScript = `return redis.call('SREM', KEYS[1], ARGV[1])`;
const removeHashFieldIfScript = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
`;

/** What one pass of moveClusterKeys did. */
export interface ClusterKeysMoved {
  /** Records copied to their cluster's name and removed from the old one. */
  moved: number;
  /** Records written again since they were copied (an older release still runs): left for the next pass. */
  changed: number;
  /**
   * Clusters' status hashes merged into their new name (newer record wins), counted apart from
   * the rest: with keepSharedStatus the shared copy stays, else it is removed once unchanged.
   */
  statuses: number;
}

/** What moveClusterKeys leaves in place. */
export interface ClusterKeysMoveOptions {
  /**
   * Merge each cluster's status records (`<prefix>:status:<cluster>`) into their new name but keep
   * the shared copy: an older release still running reads its dependencies' records there. @defaultValue false
   */
  keepSharedStatus?: boolean;
}

/**
 * moveClusterKeys moves every record of one target cluster that an older release kept under the
 * deployment's shared hash tag to its cluster's tag (RecordKeys.clusterPrefix), with no record
 * lost: each is copied (DUMP, RESTORE in the new slot, merged into a record a newer release may
 * have written meanwhile) before the old one is removed, and an old record written again since
 * its copy stays for the next pass. Without a hash tag no name changed and nothing is done.
 *
 * It is safe to run from every replica at once and again and again: during a rolling upgrade the
 * older release keeps writing the old names until it stops, so the reconciler runs a pass at start
 * (after claiming the schema) and then every minute (see the reconciler's wiring).
 */
export async function moveClusterKeys(redis: RedisClient, keys: RecordKeys, options: ClusterKeysMoveOptions = {}): Promise<ClusterKeysMoved> {
  const done: ClusterKeysMoved = { moved: 0, changed: 0, statuses: 0 };
  if (!keys.hashTagged) return done;
  for (const legacy of await legacyKeys(redis, keys)) {
    if (legacy === `${keys.prefix}:prune-holds`) await splitSet(redis, legacy, (member) => keys.pruneHolds(member.slice(0, member.indexOf('/'))), done);
    else if (legacy.startsWith(`${keys.prefix}:revision-live:`)) await splitRevisionLive(redis, keys, legacy, done);
    else {
      const name = movedName(keys, legacy);
      const status = legacy.startsWith(`${keys.prefix}:status:`);
      if (name !== undefined && status) await mergeStatus(redis, legacy, name, done, options.keepSharedStatus === true);
      else if (name !== undefined) await moveOne(redis, legacy, name, done);
    }
  }
  return done;
}

async function moveOne(redis: RedisClient, legacy: string, name: string, done: ClusterKeysMoved): Promise<void> {
  const dump = await copyInto(redis, legacy, name);
  if (dump === undefined) return;
  const removed = Number(await redis.eval(deleteIfUnchangedScript, 1, legacy, dump));
  if (removed === 1) done.moved += 1;
  else done.changed += 1;
}

/** mergeStatus merges a cluster's shared status hash into its own; the shared one stays when kept, else goes once unchanged. */
async function mergeStatus(redis: RedisClient, legacy: string, name: string, done: ClusterKeysMoved, keep: boolean): Promise<void> {
  const dump = await copyInto(redis, legacy, name);
  if (dump === undefined) return;
  done.statuses += 1;
  if (!keep) await redis.eval(deleteIfUnchangedScript, 1, legacy, dump);
}

/** copyInto copies a record to its new name's slot and merges it there (mergeScript); the dump it copied, or undefined when gone. */
async function copyInto(redis: RedisClient, legacy: string, name: string): Promise<Buffer | undefined> {
  const [dump, ttl] = await Promise.all([redis.dumpBuffer(legacy), redis.pttl(legacy)]);
  if (dump === null) return undefined;
  const copy = `${name.slice(0, name.indexOf('}') + 1)}:moving:${randomUUID()}`;
  await redis.restore(copy, ttl > 0 ? ttl : 0, dump);
  await redis.eval(mergeScript, 2, copy, name);
  return dump;
}

/** splitSet moves each member of a shared set to the set `nameOf(member)`, then removes it from the shared one. */
async function splitSet(redis: RedisClient, legacy: string, nameOf: (member: string) => string, done: ClusterKeysMoved): Promise<void> {
  for (const member of await redis.smembers(legacy)) {
    await redis.sadd(nameOf(member), member);
    await redis.eval(removeSetMemberScript, 1, legacy, member);
    done.moved += 1;
  }
}

/** splitRevisionLive moves the `<cluster>|first|last` fields of a revision's shared hash to the cluster's own hash. */
async function splitRevisionLive(redis: RedisClient, keys: RecordKeys, legacy: string, done: ClusterKeysMoved): Promise<void> {
  const rest = legacy.slice(`${keys.prefix}:revision-live:`.length);
  const colon = rest.lastIndexOf(':');
  if (colon <= 0) return;
  const [source, revision] = [rest.slice(0, colon), rest.slice(colon + 1)];
  const [fields, ttl] = await Promise.all([redis.hgetall(legacy), redis.ttl(legacy)]);
  for (const [field, time] of Object.entries(fields)) {
    const cluster = field.slice(0, field.indexOf('|'));
    if (!clusterNamePattern.test(cluster)) continue;
    const name = keys.revisionLive(source, revision, cluster);
    await redis.hsetnx(name, field, time);
    if (ttl > 0) await redis.expire(name, ttl, 'NX');
    const removed = Number(await redis.eval(removeHashFieldIfScript, 1, legacy, field, time));
    if (removed === 1) done.moved += 1;
    else done.changed += 1;
  }
}

/**
 * legacyKeys lists the keys under the deployment's own tag. On a Redis Cluster they all lie in
 * one slot, read from the primary that serves it (CLUSTER GETKEYSINSLOT, no walk of the
 * keyspace); on one Redis, SCAN with a pattern.
 */
async function legacyKeys(redis: RedisClient, keys: RecordKeys): Promise<string[]> {
  if (redis.isCluster) {
    const cluster = redis as Cluster;
    const slot = Number(await cluster.cluster('KEYSLOT', keys.prefix));
    const found: string[] = [];
    for (const node of cluster.nodes('master')) {
      const count = Number(await node.cluster('COUNTKEYSINSLOT', slot));
      if (count > 0) found.push(...(await node.cluster('GETKEYSINSLOT', slot, count)) as string[]);
    }
    return found.filter((key) => key.startsWith(`${keys.prefix}:`));
  }
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await (redis as Redis).scan(cursor, 'MATCH', `${keys.prefix}:*`, 'COUNT', 1000);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  return found;
}
