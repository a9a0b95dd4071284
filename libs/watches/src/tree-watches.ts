import { randomUUID } from 'node:crypto';
import { watchObjects, type ClusterConnection, type RunningWatch, type WatchEventType } from '@tidemark/cluster';
import { RedisLease, type KubernetesManifest, type LiveChild, type Logger } from '@tidemark/contracts';
import { healthOf } from '@tidemark/kinds';
import type { StatusStore } from '@tidemark/status-store';
import type { RedisClient } from '@tidemark/contracts';

export interface TreeWatchOptions {
  clusters: ReadonlyMap<string, ClusterConnection>;
  statusStore: StatusStore;
  /** For the per-cluster lease (named by the status store's keys): one process records a cluster's tree. */
  redis: RedisClient;
  /** Changes within this window are written together. @defaultValue 500 */
  flushMs?: number;
  /** How often the lease is renewed or taken. @defaultValue 5000 */
  refreshMs?: number;
  /** Children kept per owner; a Deployment scaled to 500 keeps its first ones. @defaultValue 50 */
  maxChildren?: number;
  log?: Logger;
}

/** The kinds controllers make under what Tidemark applies: Deployment → ReplicaSet → Pod, and Jobs', StatefulSets' and DaemonSets' Pods. */
const childKinds = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet' }, { apiVersion: 'v1', kind: 'Pod' }] as const;

/**
 * startTreeWatches records, per cluster, the ReplicaSets and Pods under every owner, from a
 * watch of those two kinds, into the status store: the dashboard draws resource trees from it
 * without ever calling a Kubernetes API. A Pod of a ReplicaSet is recorded under the
 * ReplicaSet's owner as well, so one read by the Deployment's uid gives the whole tree.
 */
export function startTreeWatches(options: TreeWatchOptions): { stop(): Promise<void> } {
  const owner = `${process.pid}:${randomUUID().slice(0, 8)}`;
  const clusters = [...options.clusters].map(([name, connection]) => new ClusterTree(name, connection, owner, options));
  const tick = () => clusters.forEach((cluster) => void cluster.refresh().catch((error: unknown) => options.log?.warn({ cluster: cluster.name, err: String(error) }, 'could not refresh the resource-tree watches')));
  tick();
  const timer = setInterval(tick, options.refreshMs ?? 5_000);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(clusters.map((cluster) => cluster.stop()));
    },
  };
}

interface Node {
  child: LiveChild;
  ownerUids: string[];
}

class ClusterTree {
  private readonly lease: RedisLease;
  private readonly nodes = new Map<string, Node>();
  /** Child uids per owner uid, so a flush never scans every Pod of the cluster. */
  private readonly childrenOf = new Map<string, Set<string>>();
  private readonly dirty = new Set<string>();
  private watches: RunningWatch[] = [];
  private timer: NodeJS.Timeout | undefined;
  private replaceNext = false;

  constructor(readonly name: string, private readonly connection: ClusterConnection, owner: string, private readonly options: TreeWatchOptions) {
    this.lease = new RedisLease(options.redis, options.statusStore.keys.treeLease(name), owner, Math.max(3 * (options.refreshMs ?? 5_000), 1_000));
  }

  async refresh(): Promise<void> {
    if (!(await this.lease.acquire())) {
      this.stopWatches();
      return;
    }
    if (this.watches.length > 0) return;
    // A fresh list replaces everything recorded before: owners deleted meanwhile leave no entry.
    this.nodes.clear();
    this.childrenOf.clear();
    this.watches = childKinds.map((kind) => watchObjects(this.connection, {
      ...kind,
      onEvent: (type, object) => this.onEvent(type, object),
      onError: (error) => this.options.log?.warn({ cluster: this.name, kind: kind.kind, err: String(error) }, 'resource-tree watch failed; retrying'),
    }));
    await Promise.all(this.watches.map((watch) => watch.synced));
    this.replaceNext = true;
    this.flushSoon();
  }

  async stop(): Promise<void> {
    this.stopWatches();
    await this.flush().catch(() => undefined);
    await this.lease.release().catch(() => false);
  }

  private stopWatches(): void {
    for (const watch of this.watches) watch.stop();
    this.watches = [];
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private onEvent(type: WatchEventType, object: KubernetesManifest): void {
    const uid = object.metadata.uid;
    if (typeof uid !== 'string') return;
    const previous = this.nodes.get(uid);
    for (const ownerUid of previous?.ownerUids ?? []) {
      this.markDirty(ownerUid);
      this.childrenOf.get(ownerUid)?.delete(uid);
    }
    this.nodes.delete(uid);
    const node = type === 'DELETED' ? undefined : toNode(object, uid);
    if (node) {
      this.nodes.set(uid, node);
      for (const ownerUid of node.ownerUids) {
        this.markDirty(ownerUid);
        let children = this.childrenOf.get(ownerUid);
        if (!children) this.childrenOf.set(ownerUid, (children = new Set()));
        children.add(uid);
      }
    }
    if (previous || node) this.flushSoon();
  }

  /** markDirty marks an owner, and the owner's owner (a ReplicaSet's Deployment), for rewriting. */
  private markDirty(ownerUid: string): void {
    this.dirty.add(ownerUid);
    for (const grand of this.nodes.get(ownerUid)?.ownerUids ?? []) this.dirty.add(grand);
  }

  private flushSoon(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch((error: unknown) => this.options.log?.warn({ cluster: this.name, err: String(error) }, 'could not record resource trees'));
    }, this.options.flushMs ?? 500);
  }

  private async flush(): Promise<void> {
    const replace = this.replaceNext;
    const owners = replace ? this.allOwners() : [...this.dirty];
    this.dirty.clear();
    this.replaceNext = false;
    const byOwner = new Map(owners.map((uid) => [uid, this.descendants(uid)]));
    await this.options.statusStore.writeLiveChildren(this.name, byOwner, replace);
  }

  private allOwners(): string[] {
    const owners = new Set(this.childrenOf.keys());
    for (const uid of [...owners]) for (const grand of this.nodes.get(uid)?.ownerUids ?? []) owners.add(grand);
    return [...owners];
  }

  /** descendants lists an owner's children and their children (two levels: ReplicaSet → Pod). */
  private descendants(ownerUid: string): LiveChild[] {
    const limit = this.options.maxChildren ?? 50;
    const found: LiveChild[] = [];
    for (const uid of this.childrenOf.get(ownerUid) ?? []) {
      const node = this.nodes.get(uid);
      if (node) found.push(node.child);
      for (const inner of this.childrenOf.get(uid) ?? []) {
        const grandchild = this.nodes.get(inner);
        if (grandchild) found.push(grandchild.child);
      }
      if (found.length >= limit) break;
    }
    return found.slice(0, limit);
  }
}

function toNode(object: KubernetesManifest, uid: string): Node | undefined {
  const references = Array.isArray(object.metadata.ownerReferences) ? (object.metadata.ownerReferences as Array<{ uid?: unknown }>) : [];
  const ownerUids = references.map((reference) => reference.uid).filter((value): value is string => typeof value === 'string');
  if (ownerUids.length === 0) return undefined;
  const health = healthOf(object);
  return {
    ownerUids,
    child: { kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name, uid, ownerUid: ownerUids[0]!, health: health.status, message: health.message },
  };
}
