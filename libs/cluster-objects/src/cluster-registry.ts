/** ClusterOrigin says where a cluster is declared: tidemark.yaml, or a Cluster object. */
export type ClusterOrigin = 'config' | 'object';

/** RegisteredCluster is one cluster this process targets, as placement sees it. */
export interface RegisteredCluster {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly origin: ClusterOrigin;
}

/** ClusterChange is told to listeners after the registry changed. */
export type ClusterChange =
  | { readonly type: 'added'; readonly cluster: RegisteredCluster }
  | { readonly type: 'relabelled'; readonly cluster: RegisteredCluster; readonly previous: RegisteredCluster }
  | { readonly type: 'removed'; readonly cluster: RegisteredCluster };

/**
 * ClusterRegistry is the one place that says which clusters exist now and with which labels:
 * config-file clusters (fixed at start) and Cluster objects (added, relabelled and removed at
 * runtime). Readers take `list()` or `get()`; `targets` and `names` are live arrays, changed in
 * place, for the routing code that keeps a reference to the list it was given. Listeners hear of
 * every change after it is in force; a listener that throws does not stop the others.
 */
export class ClusterRegistry {
  private readonly clusters = new Map<string, RegisteredCluster>();
  private readonly listeners = new Set<(change: ClusterChange) => void>();
  /** Every cluster's name and labels, in registration order (config-file clusters first). */
  readonly targets: { name: string; labels: Readonly<Record<string, string>> }[] = [];
  /** Every cluster's name, in the same order. */
  readonly names: string[] = [];

  constructor(configClusters: readonly { name: string; labels: Readonly<Record<string, string>> }[] = []) {
    for (const cluster of configClusters) this.put({ name: cluster.name, labels: { ...cluster.labels }, origin: 'config' });
  }

  /** list gives every cluster now. */
  list(): RegisteredCluster[] {
    return [...this.clusters.values()];
  }

  get(name: string): RegisteredCluster | undefined {
    return this.clusters.get(name);
  }

  /** labelsOf gives a cluster's labels now, or undefined for a cluster that is not registered. */
  labelsOf(name: string): Readonly<Record<string, string>> | undefined {
    return this.clusters.get(name)?.labels;
  }

  /** onChange tells `listener` of every later change; the returned function stops that. */
  onChange(listener: (change: ClusterChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** put adds a cluster or replaces its labels. Only the cluster-object controller and the constructor call it. */
  put(cluster: RegisteredCluster): void {
    const previous = this.clusters.get(cluster.name);
    const entry = { name: cluster.name, labels: Object.freeze({ ...cluster.labels }), origin: cluster.origin };
    this.clusters.set(cluster.name, Object.freeze(entry));
    const target = this.targets.find((existing) => existing.name === cluster.name);
    if (target) target.labels = entry.labels;
    else {
      this.targets.push({ name: entry.name, labels: entry.labels });
      this.names.push(entry.name);
    }
    this.tell(previous ? { type: 'relabelled', cluster: entry, previous } : { type: 'added', cluster: entry });
  }

  /** remove takes a cluster out; placement no longer targets it. */
  remove(name: string): void {
    const previous = this.clusters.get(name);
    if (!previous) return;
    this.clusters.delete(name);
    this.targets.splice(this.targets.findIndex((entry) => entry.name === name), 1);
    this.names.splice(this.names.indexOf(name), 1);
    this.tell({ type: 'removed', cluster: previous });
  }

  private tell(change: ClusterChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // One listener's failure is its own; the registry has changed regardless.
      }
    }
  }
}
