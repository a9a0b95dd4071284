import type { KubernetesManifest } from '@tidemark/contracts';
import { compareResourceVersions } from './resource-version';
import type { WatchEventType, WatchProgress } from './watch';
import { markTrimmed, trimManagedFields } from './trim-managed-fields';

/** CachedObjectName names one object in a cache: its apiVersion, kind, namespace ('' when cluster-scoped) and name. */
export interface CachedObjectName {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** CacheAnswer is what the cache knows for sure: the object as of the watch (undefined: it does not exist). */
export interface CacheAnswer {
  object: KubernetesManifest | undefined;
}

export interface ObjectCacheOptions {
  /** Objects held per cluster; past it, the kind that overflowed is dropped and read live. @defaultValue 50_000 */
  maxObjects?: number;
  /** Told once per kind that overflowed. */
  onOverflow?(kind: string, held: number): void;
  /**
   * Tidemark's own field managers. With them, each object is held with its managedFields trimmed
   * (trimManagedFields): these managers' entries whole, of every other only what overlaps them.
   * Without them, objects are held whole. @defaultValue none
   */
  ownManagers?: readonly string[];
  /**
   * Told when a lookup asks for a kind no watch feeds (never started, or forgotten): the owner may
   * start its watch then, so the lookups after its first list answer, instead of waiting until a
   * record names the kind. @defaultValue none
   */
  onUnwatchedKind?(apiVersion: string, kind: string): void;
}

/**
 * KindState: `listing` until the first list is complete, `fresh` while a watch stream is
 * connected, `interrupted` between a broken stream and its resumption, `dropped` after an overflow.
 * Only a fresh kind answers; every other state means "ask the API server".
 */
type KindState = 'listing' | 'fresh' | 'interrupted' | 'dropped';

/**
 * HeldObject is one cached object as its JSON text and its resourceVersion. As text an object
 * takes less heap than as a tree of JS objects (bench/scale's ConfigMaps with managedFields:
 * 1,076 bytes against 1,419), and a lookup must copy it anyway, so JSON.parse is the copy.
 */
interface HeldObject {
  resourceVersion: string | undefined;
  json: string;
  /** Whether other managers' field sets were trimmed: a reader deciding drift reads the object whole. */
  trimmed: boolean;
}

interface KindStore {
  state: KindState;
  objects: Map<string, HeldObject>;
  /** Objects of a list in progress; they replace `objects` when it completes. */
  pending?: Map<string, HeldObject>;
  /** Versions of deletions since the last list, so a late event cannot bring an object back. */
  tombstones: Map<string, string>;
  /** The newest version the watch has shown: everything up to it is in `objects`. */
  progress?: string;
}

/** Deletions remembered per kind; the oldest go first. */
const maxTombstones = 1_000;

/**
 * ObjectCache holds, per cluster, the objects of the kinds Tidemark manages as their list+watch
 * shows them, keyed by kind (at the version watched) and namespace/name, like an informer's store. It answers only what it knows: a kind whose list is not complete, whose
 * stream is broken, or that was dropped answers nothing, never "absent". Secrets are never held.
 */
export class ObjectCache {
  private readonly kinds = new Map<string, KindStore>();
  private held = 0;
  private readonly ownManagers: ReadonlySet<string> | undefined;

  constructor(private readonly options: ObjectCacheOptions = {}) {
    this.ownManagers = options.ownManagers ? new Set(options.ownManagers) : undefined;
  }

  /**
   * lookup answers from the cache, or undefined when the API server must be asked. `atLeast`
   * is a version the caller knows the object reached (its own last write): an older entry, or a
   * kind whose watch has not shown that version yet, answers nothing.
   */
  lookup(target: CachedObjectName, atLeast?: string): CacheAnswer | undefined {
    const store = this.kinds.get(kindKey(target.apiVersion, target.kind));
    if (!store) this.options.onUnwatchedKind?.(target.apiVersion, target.kind);
    if (!store || store.state !== 'fresh') return undefined;
    const held = store.objects.get(objectKey(target.namespace, target.name));
    if (atLeast !== undefined) {
      const order = compareResourceVersions(held ? held.resourceVersion : store.progress, atLeast);
      if (order === undefined || order < 0) return undefined;
    }
    // A copy, as an informer's reader deep-copies: a caller's change never reaches the store.
    if (!held) return { object: undefined };
    const object = JSON.parse(held.json) as KubernetesManifest;
    return { object: held.trimmed ? markTrimmed(object) : object };
  }

  /**
   * heldVersion is the resourceVersion the cache holds an object at, without copying it, or
   * undefined when it cannot say (a kind not fresh, an object it does not hold): a resync asks it
   * whether an object is still at the version its last apply left.
   */
  heldVersion(target: CachedObjectName): string | undefined {
    const store = this.kinds.get(kindKey(target.apiVersion, target.kind));
    if (!store || store.state !== 'fresh') return undefined;
    return store.objects.get(objectKey(target.namespace, target.name))?.resourceVersion;
  }

  /** watchHandlers are the callbacks that feed one kind's store from watchObjects. */
  watchHandlers(apiVersion: string, kind: string): { onEvent(type: WatchEventType, object: KubernetesManifest, initial: boolean): void; onProgress(progress: WatchProgress): void } {
    return {
      onEvent: (type, object, initial) => this.onEvent(apiVersion, kind, type, object, initial),
      onProgress: (progress) => this.onProgress(apiVersion, kind, progress),
    };
  }

  /** forget drops a kind that is no longer watched. */
  forget(apiVersion: string, kind: string): void {
    const key = kindKey(apiVersion, kind);
    const store = this.kinds.get(key);
    if (!store) return;
    this.held -= store.objects.size;
    this.kinds.delete(key);
  }

  /** stats says how much the cache holds: kinds, objects, and the kinds that answer. */
  stats(): { kinds: number; fresh: number; objects: number } {
    return { kinds: this.kinds.size, fresh: [...this.kinds.values()].filter((store) => store.state === 'fresh').length, objects: this.held };
  }

  /** sizeInJson is how many bytes the held objects take as JSON, for a bench (it walks every object). */
  sizeInJson(): number {
    let bytes = 0;
    for (const store of this.kinds.values()) for (const object of store.objects.values()) bytes += object.json.length;
    return bytes;
  }

  /** onProgress moves a kind between its states and advances what it has seen. */
  onProgress(apiVersion: string, kind: string, progress: WatchProgress): void {
    if (isSecret(apiVersion, kind)) return;
    const store = this.storeFor(apiVersion, kind);
    if (store.state === 'dropped') return;
    switch (progress.type) {
      case 'listing':
        store.state = 'listing';
        store.pending = new Map();
        return;
      case 'listed':
        this.held += (store.pending?.size ?? 0) - store.objects.size;
        store.objects = store.pending ?? new Map();
        store.pending = undefined;
        store.tombstones.clear();
        store.progress = progress.resourceVersion;
        store.state = 'fresh';
        this.checkBound(store, kind);
        return;
      case 'streaming':
        if (store.state === 'interrupted') store.state = 'fresh';
        return;
      case 'bookmark':
        store.progress = newer(store.progress, progress.resourceVersion);
        return;
      case 'interrupted':
        if (store.state === 'fresh') store.state = 'interrupted';
        return;
    }
  }

  /** onEvent applies one watch event; an event older than what the store holds for that object is ignored. */
  onEvent(apiVersion: string, kind: string, type: WatchEventType, object: KubernetesManifest, initial: boolean): void {
    if (isSecret(apiVersion, kind)) return;
    const store = this.storeFor(apiVersion, kind);
    if (store.state === 'dropped') return;
    const key = objectKey(object.metadata.namespace ?? '', object.metadata.name);
    const version = object.metadata.resourceVersion;
    if (initial) {
      store.pending?.set(key, this.heldObject(object, apiVersion, kind));
      return;
    }
    store.progress = newer(store.progress, version);
    const heldVersion = store.objects.get(key)?.resourceVersion ?? store.tombstones.get(key);
    if (heldVersion !== undefined && !isNewer(version, heldVersion)) return;
    if (type === 'DELETED') {
      if (store.objects.delete(key)) this.held -= 1;
      if (version) remember(store.tombstones, key, version);
      return;
    }
    store.tombstones.delete(key);
    if (!store.objects.has(key)) this.held += 1;
    store.objects.set(key, this.heldObject(object, apiVersion, kind));
    this.checkBound(store, kind);
  }

  /** heldObject is what the store keeps of a watched object (watch events of a list omit apiVersion and kind). */
  private heldObject(object: KubernetesManifest, apiVersion: string, kind: string): HeldObject {
    const kept = this.ownManagers ? trimManagedFields(object, this.ownManagers) : object;
    return { resourceVersion: object.metadata.resourceVersion, json: JSON.stringify({ ...kept, apiVersion, kind }), trimmed: kept !== object };
  }

  private storeFor(apiVersion: string, kind: string): KindStore {
    const key = kindKey(apiVersion, kind);
    let store = this.kinds.get(key);
    if (!store) {
      store = { state: 'listing', objects: new Map(), tombstones: new Map() };
      this.kinds.set(key, store);
    }
    return store;
  }

  /** checkBound drops the kind that took the cache past its bound: its reads go to the API server. */
  private checkBound(store: KindStore, kind: string): void {
    if (this.held <= (this.options.maxObjects ?? 50_000)) return;
    this.held -= store.objects.size;
    store.objects = new Map();
    store.tombstones.clear();
    store.state = 'dropped';
    this.options.onOverflow?.(kind, this.held);
  }
}

/** kindKey: one store per served version, since an object read at one version may differ at another. */
function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}|${kind}`;
}

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Secret data never sits in the cache: a Secret is always read from the API server. */
function isSecret(apiVersion: string, kind: string): boolean {
  return apiVersion === 'v1' && kind === 'Secret';
}

/** isNewer: a version that cannot be compared counts as newer, since one stream delivers in order. */
function isNewer(version: string | undefined, than: string): boolean {
  const order = compareResourceVersions(version, than);
  return order === undefined || order > 0;
}

function newer(current: string | undefined, candidate: string | undefined): string | undefined {
  if (candidate === undefined) return current;
  return current === undefined || isNewer(candidate, current) ? candidate : current;
}

function remember(tombstones: Map<string, string>, key: string, version: string): void {
  tombstones.delete(key);
  tombstones.set(key, version);
  if (tombstones.size > maxTombstones) tombstones.delete(tombstones.keys().next().value!);
}
