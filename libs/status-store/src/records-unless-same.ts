import { parseClusterHealth, type ObjectStatus, type RecordKeys, type RedisClient } from '@tidemark/contracts';
import { parseStatusRecord } from './status-view';

// KEYS[1] a cluster's status hash; ARGV pairs of object key and the SHA-1 its reader holds ('' for
// none). Returns pairs of the record's SHA-1 ('' when there is none) and its text, '' when the
// reader holds it already: an unchanged record crosses the wire as 40 bytes, and is not parsed.
const recordsUnlessSame = `
local out = {}
for i = 1, #ARGV, 2 do
  local raw = redis.call('HGET', KEYS[1], ARGV[i])
  if raw then
    local hash = redis.sha1hex(raw)
    out[#out + 1] = hash
    out[#out + 1] = (hash == ARGV[i + 1]) and '' or raw
  else
    out[#out + 1] = ''
    out[#out + 1] = ''
  end
end
return out
`;

/** RecordUnlessSame is one object's record as stored (`record`, with its `hash`), `same` as the reader holds, or none. */
export type RecordUnlessSame = { kind: 'same'; hash: string } | { kind: 'read'; hash: string; record: ObjectStatus | undefined } | { kind: 'none' };

/** RecordsUnlessSame: per object what changed, its suspend flag, and whether its cluster is available. */
export interface RecordsUnlessSame {
  records: RecordUnlessSame[];
  suspended: boolean[];
  clusterAvailable: boolean;
}

/**
 * readRecordsUnlessSame is getMany for a reader that keeps what it made of each record (the resync
 * sweep): a record whose SHA-1 is the one `known` names comes back as `same`, without its text.
 * The record is not joined with the cluster's availability; `clusterAvailable` says it.
 */
export async function readRecordsUnlessSame(redis: RedisClient, keys: RecordKeys, cluster: string, objectKeys: readonly string[], known: readonly (string | undefined)[]): Promise<RecordsUnlessSame> {
  if (objectKeys.length === 0) return { records: [], suspended: [], clusterAvailable: true };
  const replies = await redis.pipeline()
    .eval(recordsUnlessSame, 1, keys.objectStatus(cluster), ...objectKeys.flatMap((key, index) => [key, known[index] ?? '']))
    .hmget(keys.suspended(cluster), ...objectKeys)
    .get(keys.clusterHealth(cluster))
    .exec();
  const reply = <T>(index: number): T => {
    const [error, value] = replies?.[index] ?? [new Error('no reply from Redis'), undefined];
    if (error) throw error;
    return value as T;
  };
  const pairs = reply<string[]>(0);
  const records = objectKeys.map((_, index): RecordUnlessSame => {
    const [hash = '', raw = ''] = [pairs[2 * index], pairs[2 * index + 1]];
    if (hash === '') return { kind: 'none' };
    return raw === '' ? { kind: 'same', hash } : { kind: 'read', hash, record: parseStatusRecord(raw) };
  });
  const health = parseClusterHealth(cluster, reply<string | null>(2));
  return { records, suspended: reply<(string | null)[]>(1).map((flag) => !!flag), clusterAvailable: health.state !== 'Unavailable' };
}
