import type { RedisClient } from '@tidemark/contracts';

// Compare-and-set: record "<at> <state>" and answer {1, previous state} only when the state
// differs and the reading is not older than the recorded one, so of many processes seeing one
// change exactly one notifies it, and a slow reader never notifies a state already left behind.
const swapScript = `
local stored = redis.call('HGET', KEYS[1], ARGV[1])
local previous = ''
if stored then
  local space = string.find(stored, ' ', 1, true)
  local at = space and string.sub(stored, 1, space - 1) or ''
  previous = space and string.sub(stored, space + 1) or stored
  if previous == ARGV[2] or ARGV[3] < at then return {0, previous} end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3] .. ' ' .. ARGV[2])
return {1, previous}
`;

// Undo a swap whose notification could not be queued, unless another process has moved on since.
const undoScript = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
return 1
`;

/** Swap is one state change: `previous` undefined when the key was never recorded. */
export interface Swap {
  key: string;
  state: string;
  at: string;
  previous: string | undefined;
}

/**
 * TransitionStore keeps the last state notified per fact key, in one Redis hash
 * (`<prefix>:notify:state`). It is what deduplicates: a state equal to the stored one is no
 * transition, whichever process or restart sees it.
 */
export class TransitionStore {
  private readonly key: string;

  constructor(private readonly redis: RedisClient, prefix: string) {
    this.key = `${prefix}:notify:state`;
  }

  /** swap records each state; it returns those that changed, with what was there before. */
  async swap(entries: readonly { key: string; state: string; at: string }[]): Promise<Swap[]> {
    if (entries.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const entry of entries) pipeline.eval(swapScript, 1, this.key, entry.key, entry.state, entry.at);
    const replies = (await pipeline.exec()) ?? [];
    const swaps: Swap[] = [];
    entries.forEach((entry, index) => {
      const [error, reply] = replies[index] ?? [new Error('no reply from Redis'), undefined];
      if (error) throw error;
      const [changed, previous] = reply as [number, string];
      if (changed === 1) swaps.push({ key: entry.key, state: entry.state, at: entry.at, previous: previous === '' ? undefined : previous });
    });
    return swaps;
  }

  /** undo puts back what a swap replaced, so the next look notifies the change again. */
  async undo(swap: Swap): Promise<void> {
    // The previous reading's time is not kept; the empty time lets any later reading win.
    await this.redis.eval(undoScript, 1, this.key, swap.key, `${swap.at} ${swap.state}`, swap.previous === undefined ? '' : ` ${swap.previous}`);
  }

  /** forget drops keys (a deleted object's), so a new object of the same name starts afresh. */
  async forget(keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await this.redis.hdel(this.key, ...keys);
  }
}
