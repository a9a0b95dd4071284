import { RecordKeys, countOf, jsonRecordOf, oneOf, optional, textOf, textsOf, type FieldRecord } from '@tidemark/contracts';
import type { RedisClient } from '@tidemark/contracts';

/**
 * PruneHold is what one revision of a source would prune on one cluster, decided for the revision
 * and the objects it removes: `allowed` (a small share; prunes go ahead), `waiting` (more than the
 * allowed share; nothing is deleted until a person confirms) or `confirmed`.
 */
export interface PruneHold {
  source: string;
  cluster: string;
  revision: string;
  /** Object keys of the source's objects on this cluster that the revision removed. */
  removed: string[];
  /** The source's objects on this cluster before the revision. */
  total: number;
  /** The share above which a prune waits, as configured when it was decided. */
  threshold: number;
  state: 'allowed' | 'waiting' | 'confirmed';
  decidedAt: string;
  confirmedBy?: string;
  confirmedAt?: string;
}

const holdSeconds = 30 * 24 * 3600;

// The first decision for a revision stands while it covers what is removed; a newer revision, or
// the same one removing an object the hold does not list (the Source's path changed, say), is a
// new question and replaces it.
const decideScript = `
local raw = redis.call('GET', KEYS[1])
if raw then
  local ok, current = pcall(cjson.decode, raw)
  if ok and type(current) == 'table' and current['revision'] == ARGV[1] and type(current['removed']) == 'table' then
    local listed = {}
    for _, key in ipairs(current['removed']) do listed[key] = true end
    local covered = true
    for _, key in ipairs(cjson.decode(ARGV[2])['removed']) do
      if not listed[key] then covered = false end
    end
    if covered then return raw end
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
redis.call('SADD', KEYS[2], ARGV[4])
return ARGV[2]
`;

// Confirm only the hold that was shown: a newer revision's hold, or one decided again because it
// removes more (ARGV[4], the shown hold's decidedAt, when given), is a new question.
const confirmScript = `
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local hold = cjson.decode(raw)
if hold['revision'] ~= ARGV[1] or hold['state'] ~= 'waiting' then return false end
if ARGV[4] ~= '' and hold['decidedAt'] ~= ARGV[4] then return false end
hold['state'] = 'confirmed'
hold['confirmedBy'] = ARGV[2]
hold['confirmedAt'] = ARGV[3]
local encoded = cjson.encode(hold)
redis.call('SET', KEYS[1], encoded, 'KEEPTTL')
return encoded
`;

/** PruneHolds keeps the mass-prune holds: the pipeline decides them, the dashboard confirms them. */
export class PruneHolds {
  private readonly keys: RecordKeys;

  constructor(private readonly redis: RedisClient, prefix?: string) {
    this.keys = new RecordKeys(prefix);
  }

  async get(source: string, cluster: string): Promise<PruneHold | undefined> {
    return parsePruneHold(await this.redis.get(this.keys.pruneHold(source, cluster)));
  }

  /**
   * decide stores a hold for a revision unless one for the same revision that lists every object
   * this one removes is there already (the first worker to decide wins; the others read its
   * answer), and returns the stored one. A hold that would remove more replaces it, to be decided
   * (and confirmed) again.
   */
  async decide(hold: PruneHold): Promise<PruneHold> {
    const raw = await this.redis.eval(decideScript, 2, this.keys.pruneHold(hold.source, hold.cluster), this.keys.pruneHolds(hold.cluster),
      hold.revision, JSON.stringify(hold), String(holdSeconds), `${hold.cluster}/${hold.source}`);
    return parsePruneHold(typeof raw === 'string' ? raw : null) ?? hold;
  }

  /**
   * confirm lets a waiting hold's prunes go ahead; undefined when there is no such hold at that
   * revision, or (with `decidedAt`, the shown hold's) when it was decided again since it was shown.
   */
  async confirm(source: string, cluster: string, revision: string, by: string, decidedAt = ''): Promise<PruneHold | undefined> {
    const raw = await this.redis.eval(confirmScript, 1, this.keys.pruneHold(source, cluster), revision, by, new Date().toISOString(), decidedAt);
    return parsePruneHold(typeof raw === 'string' ? raw : null);
  }

  /**
   * waiting lists every hold of the given clusters that waits for confirmation (each cluster's
   * holds are indexed under its own keys: see RecordKeys.pruneHolds).
   */
  async waiting(clusters: readonly string[]): Promise<PruneHold[]> {
    const indexes = new Set(clusters.map((cluster) => this.keys.pruneHolds(cluster)));
    const wanted = new Set(clusters);
    const holds: PruneHold[] = [];
    for (const index of indexes) {
      for (const member of await this.redis.smembers(index)) {
        const slash = member.indexOf('/');
        const cluster = member.slice(0, slash);
        if (!wanted.has(cluster)) continue;
        const hold = await this.get(member.slice(slash + 1), cluster);
        if (!hold) await this.redis.srem(index, member);
        else if (hold.state === 'waiting') holds.push(hold);
      }
    }
    return holds.sort((a, b) => a.decidedAt.localeCompare(b.decidedAt));
  }
}

const holdStates: readonly PruneHold['state'][] = ['allowed', 'waiting', 'confirmed'];

/** parsePruneHold reads a stored hold field by field; undefined for anything that is not one. */
export function parsePruneHold(raw: string | null | undefined): PruneHold | undefined {
  const value = jsonRecordOf(raw);
  const subject = value && holdSubjectOf(value);
  const decision = value && holdDecisionOf(value);
  if (!value || !subject || !decision) return undefined;
  return { ...subject, ...decision, ...optional('confirmedBy', textOf(value.confirmedBy, 256)), ...optional('confirmedAt', textOf(value.confirmedAt, 64)) };
}

/** holdSubjectOf reads what a hold is about: the source, cluster and revision, and what it removes. */
function holdSubjectOf(value: FieldRecord): Pick<PruneHold, 'source' | 'cluster' | 'revision' | 'removed'> | undefined {
  const source = textOf(value.source, 253);
  const cluster = textOf(value.cluster, 253);
  const revision = textOf(value.revision, 128);
  const removed = textsOf(value.removed, 1024);
  return source === undefined || cluster === undefined || revision === undefined || removed === undefined ? undefined : { source, cluster, revision, removed };
}

/** holdDecisionOf reads what was decided about it, and when. */
function holdDecisionOf(value: FieldRecord): Pick<PruneHold, 'total' | 'threshold' | 'state' | 'decidedAt'> | undefined {
  const total = countOf(value.total);
  const threshold = countOf(value.threshold);
  const state = oneOf(value.state, holdStates);
  const decidedAt = textOf(value.decidedAt, 64);
  return total === undefined || threshold === undefined || state === undefined || decidedAt === undefined ? undefined : { total, threshold, state, decidedAt };
}
