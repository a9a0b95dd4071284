import { duplicateClient, messageOf, parseSourceHead, type Logger, type RecordKeys, type RedisClient, type SourceHead } from '@tidemark/contracts';
import type { GitSource } from '@tidemark/git-source';

export interface SourcePrefetchOptions {
  /** A connection the app owns; duplicated once for the subscription. */
  redis: RedisClient;
  keys: RecordKeys;
  /** The source this process reads by that name, looked up at each hint (Source objects come and go). */
  sourceOf(name: string): Pick<GitSource, 'warm'> | undefined;
  log: Logger;
  /** Least time between two fetches of one source that hints start; hints inside it fold into one fetch after it. @defaultValue 200 */
  minIntervalMs?: number;
  /** Called after each fetch a hint started, with the head fetched (tests). */
  onWarmed?(source: string, head: string): void;
}

/** One source's hints: when its last fetch started, the one in flight, and the newest hint waiting. */
interface HintState {
  lastAt: number;
  /** The head the last fetch brought: a poll's hint that names it (after a webhook's) asks nothing. */
  lastHead?: string;
  running: boolean;
  waiting?: SourceHead;
  timer?: NodeJS.Timeout;
}

/**
 * startSourcePrefetch makes an agent fetch a source's ref as soon as the hub says it may have moved
 * (RecordKeys.sourceHeads: a push's webhook, or a poll that found a new head), so the fetch overlaps
 * the hub's poll, routing and enqueue, and the job that follows is admitted from the cache. A hint
 * only warms the cache: the fetch is GitSource.warm (the revision gate's refresh of the configured
 * ref, with its bounds), and nothing is applied because of it; jobs still pass the gate. A forged
 * hint costs at most one fetch per source per `minIntervalMs`. It returns the stop.
 */
export async function startSourcePrefetch(options: SourcePrefetchOptions): Promise<() => Promise<void>> {
  const intervalMs = options.minIntervalMs ?? 200;
  const states = new Map<string, HintState>();
  let stopped = false;
  const run = (source: Pick<GitSource, 'warm'>, state: HintState, head: SourceHead) => {
    state.running = true;
    state.lastAt = performance.now();
    source.warm(head.revision).then((fetched) => {
      if (fetched !== undefined) state.lastHead = fetched;
      if (fetched !== undefined) options.onWarmed?.(head.source, fetched);
    }, (error: unknown) => {
      // The job fetches for itself, as it would have without the hint.
      options.log.info({ source: head.source, err: messageOf(error) }, 'fetching a source ahead of its jobs failed');
    }).finally(() => {
      state.running = false;
      const next = state.waiting;
      state.waiting = undefined;
      if (next && !stopped) hinted(next);
    });
  };
  const hinted = (head: SourceHead) => {
    const source = options.sourceOf(head.source);
    if (!source || stopped) return;
    let state = states.get(head.source);
    if (!state) states.set(head.source, state = { lastAt: Number.NEGATIVE_INFINITY, running: false });
    // Already fetched (the webhook's hint came first): neither delayed nor counted against the bound.
    if (head.revision !== undefined && head.revision === state.lastHead) return;
    // One hint waits: the newest, unless a hint to fetch the ref waits already (it fetches any head that hints name).
    const wait = state.lastAt + intervalMs - performance.now();
    if (!state.running && !state.timer && wait <= 0) return run(source, state, head);
    if (state.waiting === undefined || state.waiting.revision !== undefined) state.waiting = head;
    if (state.running || state.timer) return;
    const held = state;
    held.timer = setTimeout(() => {
      held.timer = undefined;
      const next = held.waiting;
      held.waiting = undefined;
      if (next) hinted(next);
    }, wait);
  };
  const subscriber = duplicateClient(options.redis);
  // It reconnects by itself; a hint missed meanwhile only means the job fetches for itself.
  subscriber.on('error', () => undefined);
  subscriber.on('message', (_channel: string, message: string) => {
    const head = parseSourceHead(message);
    if (head) hinted(head);
  });
  try {
    await subscriber.subscribe(options.keys.sourceHeads);
  } catch (error) {
    subscriber.disconnect();
    throw error;
  }
  return async () => {
    stopped = true;
    for (const state of states.values()) clearTimeout(state.timer);
    await subscriber.quit().catch(() => undefined);
  };
}
