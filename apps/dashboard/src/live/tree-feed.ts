import { parseTreeChange, type TreeChange } from '@tidemark/contracts';
import type { StatusStore } from '@tidemark/status-store';
import type { RedisClient } from '@tidemark/contracts';

export interface TreeFeedOptions {
  store: StatusStore;
  /** The subscriber connection the status cache uses: one connection may hold several channels. */
  subscriber: RedisClient;
}

type Listener = (change: TreeChange) => void;

/**
 * TreeFeed passes on the store's TreeChange messages (Pods and ReplicaSets rewritten under some
 * owners), so an open resource tree redraws when a Pod comes or goes, not at the next reconcile.
 */
export class TreeFeed {
  private readonly listeners = new Set<Listener>();
  private started = false;

  constructor(private readonly options: TreeFeedOptions) {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.options.subscriber.on('message', this.onMessage);
    await this.options.subscriber.subscribe(this.options.store.treeChannel);
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.options.subscriber.off('message', this.onMessage);
    if (this.options.subscriber.status === 'ready') await this.options.subscriber.unsubscribe(this.options.store.treeChannel);
  }

  /** onChange registers a listener; it returns the function that removes it. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private readonly onMessage = (channel: string, message: string): void => {
    if (channel !== this.options.store.treeChannel) return;
    const change = parseTreeChange(message);
    if (!change) return;
    for (const listener of this.listeners) listener(change);
  };
}
