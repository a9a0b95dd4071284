import { randomUUID } from 'node:crypto';
import { parseStatusChange, parseStatusSync, type ObjectStatus } from '@tidemark/contracts';
import type { StatusStore } from '@tidemark/status-store';
import { summarizeCell, type CellSummary } from './cell-state';
import { SharedRounds } from './shared-rounds';
import type { RedisClient } from '@tidemark/contracts';

/** CachedStatus is a record with its cell summary, computed once per write. */
export interface CachedStatus {
  status: ObjectStatus;
  cell: CellSummary;
}

/** ObjectRow is one object with its records per cluster and what the filters compare, computed once per write. */
export interface ObjectRow {
  objectKey: string;
  kind: string;
  /**
   * The namespace the reconciler resolved (with discovery and the default namespace), '' for
   * cluster-scoped objects. A file that names no namespace has `_` in its key but lives in one.
   */
  namespace: string;
  /** Lower-case object key, Git path and rendered objects, what the free-text filter searches (searchText). */
  search: string;
  cells: Map<string, CachedStatus>;
}

/** CachedChange is one applied change, as live updates send it. */
export interface CachedChange {
  cluster: string;
  objectKey: string;
  /** undefined when the record was deleted. */
  entry?: CachedStatus;
  /** True when the object was not known on any cluster before: a list may need a new row. */
  created?: boolean;
}

export interface StatusCacheOptions {
  store: StatusStore;
  /** A connection the caller owns, for pub/sub only: it goes into subscriber mode (the tree feed shares it). */
  subscriber: RedisClient;
  /** Changes that arrive within this window are read and announced together. @defaultValue 50 */
  batchMs?: number;
  /** How long sync waits for its marker before answering from the cache as it is. @defaultValue 2000 */
  syncTimeoutMs?: number;
  /** How long a change whose record could not be read waits before it is read again. @defaultValue 1000 */
  retryMs?: number;
}

type Listener = (changes: readonly CachedChange[]) => void;

/** A record read that failed (flush), told apart from a record that is not there. */
const unread: unique symbol = Symbol('unread');

/** How many markers a recovery sends (each waits syncTimeoutMs) before it reloads anyway. */
const recoverAttempts = 30;

/**
 * StatusCache keeps every status record in memory, fed by the store's pub/sub channel, so a
 * page of 10,000 objects × 3 clusters filters in memory instead of parsing 30,000 records per
 * request. A reconnect of the subscriber reloads everything once it receives again (messages may
 * have been missed meanwhile).
 * `sync` makes it read-your-writes: a request that syncs first sees every write made before it.
 */
export class StatusCache {
  private readonly byKey = new Map<string, ObjectRow>();
  private readonly clusterSet = new Set<string>();
  private readonly pending = new Set<string>();
  private readonly listeners = new Set<Listener>();
  private sortedRows: ObjectRow[] | undefined;
  private sortedKeys: string[] | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The flush under way; flushes run one after the other, so an older read never lands last. */
  private flushing: Promise<void> = Promise.resolve();
  /** Sync markers sent and not yet received, by token. */
  private readonly markers = new Map<string, () => void>();
  private started = false;
  private recovering = false;
  private readonly syncRounds = new SharedRounds(() => this.syncRound());
  /** version grows with every applied change; views cache on it. */
  version = 0;

  constructor(private readonly options: StatusCacheOptions) {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const { subscriber, store } = this.options;
    subscriber.on('message', this.onMessage);
    subscriber.on('ready', this.onReconnect);
    await subscriber.subscribe(store.channel);
    await this.reload();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    clearTimeout(this.timer);
    this.options.subscriber.off('message', this.onMessage);
    this.options.subscriber.off('ready', this.onReconnect);
    if (this.options.subscriber.status === 'ready') await this.options.subscriber.unsubscribe(this.options.store.channel);
  }

  /**
   * sync brings the cache up to every write made before the call: it publishes a marker on the
   * status channel, waits until the subscriber receives it (every change announced earlier has
   * arrived by then), then reads the changes still pending. The overview, the matrix and the
   * detail page then agree. Concurrent requests share one marker (a marker sent after they all
   * asked), so a busy dashboard sends one, not one per request. Without an answer in time
   * (subscriber reconnecting) it gives up and the cache answers as it is; the reconnect reloads it.
   */
  async sync(): Promise<void> {
    if (!this.started) return;
    await this.syncRounds.run();
  }

  /** syncRound is one marker's round trip, shared by every request that waits on it. */
  private async syncRound(): Promise<void> {
    // Without an answer (Redis down) readiness says so; the cache answers with what it has.
    if (await this.markerReturns()) await this.flushNow().catch(() => undefined);
  }

  /** markerReturns publishes a marker on the status channel and says whether the subscriber received it in time. */
  private async markerReturns(): Promise<boolean> {
    const token = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    // With a hash tag a marker comes from each cluster's slot (publishSync says how many): all must arrive.
    let received = 0;
    let expected = Infinity;
    let done: (value: boolean) => void = () => undefined;
    const arrived = new Promise<boolean>((resolve) => {
      done = resolve;
      this.markers.set(token, () => {
        received += 1;
        if (received >= expected) resolve(true);
      });
      timer = setTimeout(() => resolve(false), this.options.syncTimeoutMs ?? 2000);
    });
    try {
      expected = await this.options.store.publishSync(token);
      if (received >= expected) done(true);
      return await arrived;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      this.markers.delete(token);
    }
  }

  /** onChange registers a listener of applied changes; it returns the function that removes it. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  clusters(): string[] {
    return [...this.clusterSet].sort();
  }

  /** keys returns every object key, sorted, cached until the set of keys changes. */
  keys(): readonly string[] {
    this.sortedKeys ??= this.rows().map((row) => row.objectKey);
    return this.sortedKeys;
  }

  /** rows returns every object row sorted by key: filters scan this array, not the map. */
  rows(): readonly ObjectRow[] {
    this.sortedRows ??= [...this.byKey.values()].sort((a, b) => (a.objectKey < b.objectKey ? -1 : a.objectKey > b.objectKey ? 1 : 0));
    return this.sortedRows;
  }

  cellsOf(objectKey: string): ReadonlyMap<string, CachedStatus> | undefined {
    return this.byKey.get(objectKey)?.cells;
  }

  *entries(): Generator<CachedStatus> {
    for (const row of this.byKey.values()) yield* row.cells.values();
  }

  /** reload reads every record of every cluster. */
  async reload(): Promise<void> {
    const { store } = this.options;
    const clusters = await store.clusters();
    const lists = await Promise.all(clusters.map((cluster) => store.list(cluster)));
    this.byKey.clear();
    this.keysChanged();
    for (const cluster of clusters) this.clusterSet.add(cluster);
    for (const status of lists.flat()) this.set(status.cluster, status.objectKey, status);
    this.version += 1;
  }

  private readonly onMessage = (channel: string, message: string): void => {
    if (channel !== this.options.store.channel) return;
    const change = parseStatusChange(message);
    if (!change) {
      const marker = parseStatusSync(message);
      if (marker) this.markers.get(marker.sync)?.();
      return;
    }
    this.pending.add(`${change.cluster}\n${change.objectKey}`);
    this.timer ??= setTimeout(() => void this.flushNow().catch(() => undefined), this.options.batchMs ?? 50);
  };

  /** flushNow reads what is pending now, after any flush under way. */
  private flushNow(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.catch(() => undefined).then(() => this.flush());
    return this.flushing;
  }

  private readonly onReconnect = (): void => {
    if (this.started && this.version > 0) void this.recover();
  };

  /**
   * recover reloads every record after the subscriber connected again, once a marker comes back:
   * ioredis says `ready` before it has re-subscribed, and a record written between a reload's
   * read and the subscription would be missed for good. Reconnects that come while one recovery
   * waits share it.
   */
  private async recover(): Promise<void> {
    if (this.recovering) return;
    this.recovering = true;
    try {
      for (let attempt = 0; this.started && attempt < recoverAttempts; attempt += 1) {
        if (await this.markerReturns()) break;
      }
      // A reload that fails (the cluster still has no primary for a slot) is tried again: given up,
      // the cache kept what it had until the subscriber reconnected once more, which may be never.
      while (this.started && !(await this.reload().then(() => true, () => false))) {
        await new Promise((resolve) => setTimeout(resolve, this.options.retryMs ?? 1000));
      }
    } finally {
      this.recovering = false;
    }
  }

  private async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending].map((entry) => entry.split('\n') as [string, string]);
    this.pending.clear();
    // A read that fails (Redis failing over) says nothing of the record: the change is read again
    // later. Taken as "no record", it dropped the row until the object changed once more.
    const statuses = await Promise.all(batch.map(([cluster, key]) => this.options.store.get(cluster, key).catch((): typeof unread => unread)));
    const changes: CachedChange[] = [];
    batch.forEach(([cluster, objectKey], index) => {
      const status = statuses[index];
      if (status === unread) {
        this.readAgainLater(cluster, objectKey);
        return;
      }
      const known = this.byKey.has(objectKey);
      const entry = this.set(cluster, objectKey, status);
      if (!entry) changes.push({ cluster, objectKey });
      else changes.push(known ? { cluster, objectKey, entry } : { cluster, objectKey, entry, created: true });
    });
    if (changes.length === 0) return;
    this.version += 1;
    for (const listener of this.listeners) listener(changes);
  }

  /** readAgainLater puts back a change whose record could not be read, and reads it after retryMs. */
  private readAgainLater(cluster: string, objectKey: string): void {
    this.pending.add(`${cluster}\n${objectKey}`);
    if (!this.started) return;
    // A batch already due (a change that came during the read) reads it sooner; keep that one.
    this.timer ??= setTimeout(() => void this.flushNow().catch(() => undefined), this.options.retryMs ?? 1000);
  }

  private set(cluster: string, objectKey: string, status: ObjectStatus | undefined): CachedStatus | undefined {
    let row = this.byKey.get(objectKey);
    if (!status) {
      row?.cells.delete(cluster);
      if (row?.cells.size === 0) {
        this.byKey.delete(objectKey);
        this.keysChanged();
      }
      return undefined;
    }
    if (!row) {
      row = newRow(objectKey);
      this.byKey.set(objectKey, row);
      this.keysChanged();
    }
    this.clusterSet.add(cluster);
    return putRecord(row, status);
  }

  private keysChanged(): void {
    this.sortedRows = undefined;
    this.sortedKeys = undefined;
  }
}

/** putRecord sets one cluster's record on an object's row, with what the filters compare. */
export function putRecord(row: ObjectRow, status: ObjectStatus): CachedStatus {
  if (status.namespace) row.namespace = status.namespace;
  const entry = { status, cell: summarizeCell(status) };
  row.cells.set(status.cluster, entry);
  row.search = searchText(row);
  return entry;
}

/**
 * searchText is what the free-text filter looks in: the object key, its Git path, and what it
 * rendered on any cluster (`Kind/namespace/name`), so a WebApp is found by its Deployment's name.
 */
function searchText(row: ObjectRow): string {
  const parts = new Set<string>([row.objectKey]);
  for (const { status } of row.cells.values()) {
    if (status.path) parts.add(status.path);
    for (const resource of status.resources ?? []) parts.add(`${resource.kind}/${resource.namespace}/${resource.name}`);
  }
  return [...parts].join('\n').toLowerCase();
}

/** newRow starts an object's row from its key; putRecord fills in what the records know. */
export function newRow(objectKey: string): ObjectRow {
  const [, kind = '', namespace = ''] = objectKey.split('/');
  return { objectKey, kind, namespace: namespace === '_' ? '' : namespace, search: objectKey.toLowerCase(), cells: new Map() };
}
