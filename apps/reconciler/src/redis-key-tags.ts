import { RecordKeys, type RedisClient } from '@tidemark/contracts';
import type { RedisEndpoint } from '@tidemark/queue';

/** RedisKeyTagsInput is what clusterKeyTags reads of the config file. */
export interface RedisKeyTagsInput {
  readonly redis?: { readonly hashTag?: boolean };
}

/**
 * clusterKeyTags sets `hashTag` on the endpoint from `redis.hashTag`: each target cluster's keys
 * then carry a prefix of their own, `{<prefix>.<cluster>}`, on one Redis server or a Sentinel group
 * as on a Redis Cluster (which always tags). Only that way can an agent's ACL rule (agentAclRule)
 * grant one cluster's keys, so an agent that logs in as an ACL user of its own without it is refused
 * here: its every command would be. It is not turned on by itself: it renames every key, and an
 * install that ran without it would lose its records (refuseUntaggedRecords stops that start); a hub
 * with agents but no tags is told so at start (warnUntaggedAgents). `invalid` makes the error for a field.
 */
export function clusterKeyTags(endpoint: RedisEndpoint, input: RedisKeyTagsInput, role: string, invalid: (field: string, message: string) => Error): RedisEndpoint {
  const asked = input.redis?.hashTag;
  if ('cluster' in endpoint) {
    if (asked === false) throw invalid('redis.hashTag', 'a Redis Cluster always names keys with hash tags (BullMQ\'s scripts need each queue in one slot); remove hashTag: false');
    return endpoint;
  }
  if (asked === true) return { ...endpoint, hashTag: true };
  const user = loginOf(endpoint);
  if (role === 'agent' && user && user !== 'default') {
    throw invalid('redis.hashTag', `this agent logs in to Redis as its own user "${user}", whose ACL rule grants only its cluster's keys under their own prefix, and on a single Redis server or a Sentinel group keys are named per cluster only with redis.hashTag: true: set it here and in the hub's file (docs/agents.md#redis-on-one-server)`);
  }
  return endpoint;
}

/** loginOf is the ACL user an endpoint logs in as, if any. */
function loginOf(endpoint: RedisEndpoint): string | undefined {
  if ('sentinel' in endpoint) return endpoint.sentinel.auth?.username;
  if (!('url' in endpoint)) return undefined;
  try {
    return decodeURIComponent(new URL(endpoint.url).username) || undefined;
  } catch {
    return undefined;
  }
}

/** untaggedAgentsWarning is what a hub with agent-served clusters but no per-cluster keys logs at start, or undefined. */
export function untaggedAgentsWarning(clusters: readonly { readonly name: string; readonly agent: boolean }[], hashTagged: boolean): string | undefined {
  const served = clusters.filter((cluster) => cluster.agent).map((cluster) => cluster.name);
  if (hashTagged || served.length === 0) return undefined;
  return `clusters ${served.join(', ')} are served by agents, but without redis.hashTag their keys share one prefix: no Redis ACL can hold an agent to its own cluster's keys. Set redis.hashTag: true on a new install (docs/agents.md#redis-on-one-server)`;
}

/**
 * refuseUntaggedRecords stops a start with `redis.hashTag` on one server or a Sentinel group when
 * Redis holds records this prefix wrote without tags and none with them: every key's name changed,
 * and starting would leave the install's records (history, holds, freezes, queued jobs) behind
 * unseen. No move exists for that change (the Redis Cluster move starts from tagged names).
 */
export async function refuseUntaggedRecords(redis: Pick<RedisClient, 'exists'>, keys: RecordKeys, plainPrefix: string): Promise<void> {
  const untagged = new RecordKeys(plainPrefix).schema;
  if (await redis.exists(keys.schema) || !await redis.exists(untagged)) return;
  throw new UntaggedRecordsError(`redis.hashTag: Redis holds this install's records named without hash tags (${untagged}); with hashTag every key is named anew (${keys.schema}), and Tidemark would start without them. Remove redis.hashTag to keep them, or give the tagged install another redis.prefix or an empty Redis: its objects are reconciled again from Git, but the old records (history, prune holds, freezes) are not carried over.`);
}

/** UntaggedRecordsError: `redis.hashTag` was turned on over records named without it. */
export class UntaggedRecordsError extends Error {
  readonly code = 'UntaggedRecords';
}
