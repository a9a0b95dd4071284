import type { KubeConfig } from '@kubernetes/client-node';
import { applyObject, applyStatus, getObject, removeFinalizer, watchObjects, type ClusterConnection, type RunningWatch } from '@tidemark/cluster';
import { isReconcileFailure, messageOf, type KubernetesManifest, type Logger } from '@tidemark/contracts';
import { loadClusterCredentials, type LoadedCredentials } from './cluster-credentials';
import { clusterApiVersion, clusterFinalizer, clusterKind } from './cluster-kind';
import { ClusterReason, clusterStatus, type ClusterObjectStatus, type ClusterObservation } from './cluster-object-status';
import type { ClusterRegistry } from './cluster-registry';
import { planFleet, type WantedCluster } from './fleet-plan';
import { parseClusterObject, type ClusterDeclaration } from './parse-cluster-object';

/** ClusterHooks are what the app does when the set of Cluster-object clusters changes. */
export interface ClusterHooks {
  /** start connects a cluster and starts its parts: queue worker, watches, health checks. */
  start(name: string, kubeconfig: KubeConfig): Promise<void>;
  /** stop stops its parts and closes its connection. Nothing in the cluster is touched. */
  stop(name: string): Promise<void>;
  /** connectionFor is a started cluster's connection (for the reachability probe). */
  connectionFor(name: string): ClusterConnection | undefined;
  /** route enqueues the objects placement now gives the cluster (added or relabelled), at each source's current revision. */
  route(name: string): Promise<void>;
  /** retire enqueues the prune of every object the cluster holds (it has left the registry); it returns how many are left. */
  retire(name: string): Promise<number>;
}

export interface ClusterControllerOptions {
  /** The management cluster, where Cluster objects and their Secrets live. */
  connection: ClusterConnection;
  /** The one namespace whose Clusters are served and whose Secrets are read (Tidemark's own). */
  namespace: string;
  registry: ClusterRegistry;
  hooks: ClusterHooks;
  log: Logger;
  /** Does this process write the Clusters' status and finalizers (poller processes do)? @defaultValue true */
  manages?: boolean;
  /** May a Cluster's spec.allowExecPlugins let its kubeconfig run a plugin? @defaultValue false */
  allowExecPlugins?: boolean;
  /** How often each served cluster's API server is asked its version. @defaultValue 15000 */
  probeIntervalMs?: number;
  /** A probe slower than this fails. @defaultValue 5000 */
  probeTimeoutMs?: number;
  /** How often a deleted Cluster's remaining objects are counted again while they are pruned. @defaultValue 2000 */
  pruneCheckMs?: number;
}

const namespacePattern = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

interface Entry {
  object: KubernetesManifest;
  observation: ClusterObservation;
}

/**
 * ClusterController watches Cluster objects (and their Secrets) in one namespace of the management
 * cluster and keeps the registry and the running clusters equal to them, without a restart: a new
 * Cluster is started and gets its objects, a relabelled one is routed again, a rotated Secret
 * reconnects it, a deleted one is stopped and its objects left alone, unless it says prune (then
 * they are pruned first, through the pipeline's guards, and a finalizer holds the Cluster meanwhile).
 * All work runs one pass at a time; events during a pass ask for one more.
 */
export class ClusterController {
  private readonly entries = new Map<string, Entry>();
  private readonly running = new Map<string, WantedCluster>();
  private readonly secrets = new Map<string, Readonly<Record<string, string>>>();
  private readonly configNames: Set<string>;
  private watches: RunningWatch[] = [];
  private timers: NodeJS.Timeout[] = [];
  private dirty = false;
  private probeDue = false;
  private pass: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: ClusterControllerOptions) {
    // A blank namespace would watch, and serve, the Clusters and Secrets of every namespace.
    if (!namespacePattern.test(options.namespace)) throw new RangeError(`The Cluster controller serves one namespace, a DNS label; got ${JSON.stringify(options.namespace)}.`);
    this.configNames = new Set(options.registry.list().filter((cluster) => cluster.origin === 'config').map((cluster) => cluster.name));
  }

  private get manages(): boolean {
    return this.options.manages ?? true;
  }

  /** start watches the namespace's Clusters and Secrets and serves the Clusters found there before it returns. */
  async start(): Promise<void> {
    const { connection, namespace, log } = this.options;
    const onError = (kind: string) => (error: unknown) => log.warn({ namespace, kind, err: messageOf(error) }, `${kind} watch failed; retrying`);
    this.watches = [
      watchObjects(connection, { apiVersion: 'v1', kind: 'Secret', namespace, onError: onError('Secret'), onEvent: (type, object) => this.secretSeen(type === 'DELETED' ? undefined : object, object.metadata.name) }),
      watchObjects(connection, { apiVersion: clusterApiVersion, kind: clusterKind, namespace, onError: onError(clusterKind), onEvent: (type, object) => this.clusterSeen(type === 'DELETED' ? undefined : object, object.metadata.name) }),
    ];
    await Promise.all(this.watches.map((watch) => watch.synced));
    const probe = setInterval(() => {
      this.probeDue = true;
      this.requestPass();
    }, this.options.probeIntervalMs ?? 15_000);
    probe.unref();
    this.timers.push(probe);
    this.requestPass();
    await this.pass;
  }

  /** stop ends the watches and stops every Cluster-object cluster (their objects stay). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const watch of this.watches) watch.stop();
    for (const timer of this.timers) clearTimeout(timer);
    await this.pass;
    for (const name of [...this.running.keys()]) await this.stopCluster(name, false);
    this.secrets.clear();
  }

  /** observations gives each Cluster object's last observation, for the dashboard and tests. */
  observations(): Map<string, ClusterObservation> {
    return new Map([...this.entries].map(([name, entry]) => [name, entry.observation]));
  }

  private clusterSeen(object: KubernetesManifest | undefined, name: string): void {
    if (object && !this.inNamespace(object, 'Cluster')) return;
    if (object) this.entries.set(name, { object, observation: this.entries.get(name)?.observation ?? { generation: object.metadata.generation ?? 0 } });
    else this.entries.delete(name);
    this.requestPass();
  }

  private secretSeen(secret: KubernetesManifest | undefined, name: string): void {
    if (secret && !this.inNamespace(secret, 'Secret')) return;
    if (!this.referencedSecrets().has(name)) return;
    const data = (secret as { data?: Record<string, string> } | undefined)?.data;
    if (data) this.secrets.set(name, data);
    else this.secrets.delete(name);
    this.requestPass();
  }

  /** inNamespace trusts only objects of the served namespace, whatever a watch hands over. */
  private inNamespace(object: KubernetesManifest, kind: string): boolean {
    if (object.metadata.namespace === this.options.namespace) return true;
    this.options.log.warn({ kind, namespace: object.metadata.namespace, name: object.metadata.name, served: this.options.namespace }, 'ignored an object outside the namespace whose Clusters are served');
    return false;
  }

  private requestPass(): void {
    if (this.stopped) return;
    this.dirty = true;
    this.pass ??= (async () => {
      while (this.dirty && !this.stopped) {
        this.dirty = false;
        await this.reconcileFleet().catch((error: unknown) => this.options.log.warn({ err: messageOf(error) }, 'Cluster objects could not be served; the next event retries'));
      }
      this.pass = undefined;
    })();
  }

  /** reconcileFleet is one pass: read every Cluster, plan, start, stop, route, probe, write status. */
  private async reconcileFleet(): Promise<void> {
    const { wanted, loaded, retiring } = await this.readClusters();
    const plan = planFleet(wanted, this.running, this.configNames);
    for (const name of plan.clashes) this.problem(name, ClusterReason.NameClash, clashMessage(this.options.namespace, name));
    for (const name of plan.stop) if (!retiring.includes(name)) await this.stopCluster(name, true);
    for (const cluster of plan.restart) await this.stopCluster(cluster.name, false);
    const fresh = [...plan.restart, ...plan.start];
    for (const cluster of fresh) await this.startCluster(cluster, loaded.get(cluster.name)!.kubeconfig);
    for (const cluster of plan.relabel) this.register(cluster);
    for (const cluster of [...fresh, ...plan.relabel]) await this.options.hooks.route(cluster.name).catch((error: unknown) => this.options.log.warn({ cluster: cluster.name, err: messageOf(error) }, 'could not route the objects of a Cluster'));
    for (const name of retiring) await this.retire(name);
    await this.probe(this.probeDue ? [...this.running.keys()] : fresh.map((cluster) => cluster.name));
    this.probeDue = false;
    if (this.manages) for (const entry of this.entries.values()) await this.writeStatus(entry);
  }

  /** readClusters gives the clusters the Cluster objects want (credentials loaded) and the deleted ones to retire. */
  private async readClusters(): Promise<{ wanted: WantedCluster[]; loaded: Map<string, LoadedCredentials>; retiring: string[] }> {
    const wanted: WantedCluster[] = [];
    const loaded = new Map<string, LoadedCredentials>();
    const retiring: string[] = [];
    for (const [name, entry] of this.entries) {
      entry.observation = { generation: entry.object.metadata.generation ?? 0, ...(entry.observation.contact ? { contact: entry.observation.contact } : {}) };
      if (entry.object.metadata.deletionTimestamp) {
        if (entry.object.metadata.finalizers?.includes(clusterFinalizer)) retiring.push(name);
        continue;
      }
      const credentials = await this.servable(name, entry);
      if (!credentials) continue;
      loaded.set(name, credentials.loaded);
      wanted.push({ name, labels: credentials.labels, fingerprint: credentials.loaded.fingerprint });
    }
    return { wanted, loaded, retiring };
  }

  /** servable parses a Cluster and loads its credentials; undefined (with the problem noted) when it cannot be served. */
  private async servable(name: string, entry: Entry): Promise<{ loaded: LoadedCredentials; labels: Readonly<Record<string, string>> } | undefined> {
    const declaration = await this.declarationOf(entry);
    if (!declaration) return undefined;
    // Before its credentials: a clashing Cluster is never served, whatever it holds.
    if (this.configNames.has(name)) {
      this.problem(name, ClusterReason.NameClash, clashMessage(this.options.namespace, name));
      return undefined;
    }
    if (this.manages) await this.keepFinalizer(entry, declaration.prune);
    const loaded = await this.credentialsOf(entry, declaration);
    return loaded ? { loaded, labels: declaration.labels } : undefined;
  }

  private async declarationOf(entry: Entry): Promise<ClusterDeclaration | undefined> {
    try {
      return parseClusterObject(entry.object);
    } catch (error) {
      if (!isReconcileFailure(error)) throw error;
      entry.observation.problem = { reason: ClusterReason.InvalidCluster, message: error.message };
      return undefined;
    }
  }

  private async credentialsOf(entry: Entry, declaration: ClusterDeclaration): Promise<LoadedCredentials | undefined> {
    const ref = declaration.credentials;
    try {
      const data = 'secret' in ref ? await this.secretData(ref.secret.name) : undefined;
      return loadClusterCredentials(declaration, data, this.options.allowExecPlugins ?? false);
    } catch (error) {
      if (!isReconcileFailure(error)) throw error;
      entry.observation.problem = { reason: error.code, message: error.message };
      return undefined;
    }
  }

  /** secretData reads through when the watch has not brought a referenced Secret (it came before its Cluster). */
  private async secretData(name: string): Promise<Readonly<Record<string, string>> | undefined> {
    const cached = this.secrets.get(name);
    if (cached) return cached;
    const live = await getObject(this.options.connection, { apiVersion: 'v1', kind: 'Secret', namespace: this.options.namespace, name });
    const data = (live as { data?: Record<string, string> } | undefined)?.data;
    if (data) this.secrets.set(name, data);
    return data;
  }

  private async startCluster(cluster: WantedCluster, kubeconfig: KubeConfig): Promise<void> {
    await this.options.hooks.start(cluster.name, kubeconfig);
    this.register(cluster);
    this.options.log.info({ cluster: cluster.name, labels: cluster.labels }, 'Cluster object served');
  }

  private register(cluster: WantedCluster): void {
    this.running.set(cluster.name, cluster);
    this.options.registry.put({ name: cluster.name, labels: cluster.labels, origin: 'object' });
  }

  /** stopCluster stops a cluster's parts; `unregister` also takes it out of placement (a restart keeps it in). */
  private async stopCluster(name: string, unregister: boolean): Promise<void> {
    if (unregister) this.options.registry.remove(name);
    this.running.delete(name);
    await this.options.hooks.stop(name).catch((error: unknown) => this.options.log.warn({ cluster: name, err: messageOf(error) }, 'a Cluster did not stop cleanly'));
    const entry = this.entries.get(name);
    if (entry) delete entry.observation.contact;
    this.options.log.info({ cluster: name, unregister }, 'Cluster object no longer served');
  }

  /** retire prunes a deleted Cluster's objects (it stays connected meanwhile), then lets it go. */
  private async retire(name: string): Promise<void> {
    const entry = this.entries.get(name)!;
    if (!this.running.has(name)) {
      // Never served (bad credentials, a clash): there is nothing of it to prune.
      if (this.manages) await removeFinalizer(this.options.connection, entry.object, clusterFinalizer);
      return;
    }
    this.options.registry.remove(name);
    const left = await this.options.hooks.retire(name);
    if (left > 0) {
      entry.observation.problem = { reason: ClusterReason.Pruning, message: `Deleted with prune: ${left} object(s) are being pruned from it (prune guards and the mass-prune hold apply) before the Cluster goes.` };
      this.recheck();
      return;
    }
    await this.stopCluster(name, true);
    if (this.manages) await removeFinalizer(this.options.connection, entry.object, clusterFinalizer);
  }

  private recheck(): void {
    const timer = setTimeout(() => {
      this.timers = this.timers.filter((entry) => entry !== timer);
      this.requestPass();
    }, this.options.pruneCheckMs ?? 2_000);
    timer.unref();
    this.timers.push(timer);
  }

  private problem(name: string, reason: string, message: string): void {
    const entry = this.entries.get(name);
    if (entry) entry.observation.problem = { reason, message };
  }

  private async probe(names: readonly string[]): Promise<void> {
    const timeoutMs = this.options.probeTimeoutMs ?? 5_000;
    await Promise.all(names.map(async (name) => {
      const entry = this.entries.get(name);
      const connection = this.options.hooks.connectionFor(name);
      if (!entry || !connection) return;
      const at = new Date().toISOString();
      try {
        const version = await connection.client.request<{ gitVersion?: string }>({ method: 'GET', path: '/version', what: `read the version of cluster ${name}`, timeoutMs });
        entry.observation.contact = { ok: true, serverVersion: String(version?.gitVersion ?? 'unknown').slice(0, 100), at };
      } catch (error) {
        entry.observation.contact = { ok: false, message: `Cluster ${name} did not answer: ${messageOf(error).slice(0, 500)}`, at };
      }
    }));
  }

  /** keepFinalizer adds the finalizer to a Cluster that asks for prune, and takes it off one that no longer does. */
  private async keepFinalizer(entry: Entry, prune: boolean): Promise<void> {
    const has = entry.object.metadata.finalizers?.includes(clusterFinalizer) ?? false;
    if (prune && !has) {
      // A manager of its own, so a Cluster applied from Git (manager 'tidemark') keeps the finalizer.
      await applyObject(this.options.connection.asManager('tidemark-clusters'), {
        apiVersion: clusterApiVersion, kind: clusterKind,
        metadata: { name: entry.object.metadata.name, namespace: this.options.namespace, finalizers: [clusterFinalizer] },
      });
    }
    if (!prune && has) await removeFinalizer(this.options.connection, entry.object, clusterFinalizer);
  }

  private async writeStatus(entry: Entry): Promise<void> {
    const previous = (entry.object.status ?? {}) as Partial<ClusterObjectStatus>;
    const status = clusterStatus(entry.observation, previous);
    try {
      await applyStatus(this.options.connection.asManager('tidemark-clusters'), entry.object, { ...status });
      entry.object = { ...entry.object, status: JSON.parse(JSON.stringify(status)) as Record<string, unknown> };
    } catch (error) {
      this.options.log.warn({ cluster: entry.object.metadata.name, err: messageOf(error) }, 'Cluster status write failed');
    }
  }

  private referencedSecrets(): Set<string> {
    const names = new Set<string>();
    for (const entry of this.entries.values()) {
      const ref = (entry.object as { spec?: { kubeconfigSecretRef?: { name?: unknown } } }).spec?.kubeconfigSecretRef?.name;
      if (typeof ref === 'string') names.add(ref);
    }
    for (const name of this.secrets.keys()) if (!names.has(name)) this.secrets.delete(name);
    return names;
  }
}

function clashMessage(namespace: string, name: string): string {
  return `Cluster ${namespace}/${name}: a cluster named ${name} is already configured in tidemark.yaml; that one is served and this Cluster is not. Rename the Cluster (or remove the config-file cluster).`;
}
