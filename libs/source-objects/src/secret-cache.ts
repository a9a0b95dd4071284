import { getObject, type ClusterConnection, type RunningWatch } from '@tidemark/cluster';
import { TerminalError, type KubernetesManifest, type Logger } from '@tidemark/contracts';
import type { SecretName } from './parse-source-object';
import { watchedNamespaces, type ServedNamespaces } from './served-namespaces';
import { watchServed, type ForbiddenWatches } from './served-watch';
import { secretNotFoundPrefix } from './source-object-status';
import type { SecretOptIn } from './secret-opt-in';

type SecretData = Readonly<Record<string, string>>;
/** SecretEntry is a Secret's data, its resourceVersion and whom it says it is for (SecretOptIn). */
export type SecretEntry = { data: SecretData; version: string } & SecretOptIn;

/**
 * SecretCache keeps the data of the Secrets that Sources reference, and nothing of the others:
 * a watch per served namespace (never cluster-wide unless every namespace is served) updates them
 * (a rotated password is used at the next request) and tells onChange.
 */
export class SecretCache {
  private readonly data = new Map<string, SecretEntry>();
  private readonly wanted = new Set<string>();
  private watches: RunningWatch[] = [];

  constructor(private readonly connection: ClusterConnection, private readonly namespaces: ServedNamespaces, private readonly log: Logger, private readonly forbidden: ForbiddenWatches, private readonly onChange: (secret: SecretName) => void) {}

  async start(): Promise<void> {
    // No label selector: RBAC cannot narrow Secrets by label, and requiring one would break every Secret written before.
    this.watches = watchedNamespaces(this.namespaces).map((namespace) => watchServed({
      connection: this.connection, apiVersion: 'v1', kind: 'Secret', namespace, forbidden: this.forbidden, log: this.log,
      onEvent: (type, object) => this.seen(type === 'DELETED' ? undefined : object, object),
    }));
    await Promise.all(this.watches.map((watch) => watch.synced));
  }

  stop(): void {
    for (const watch of this.watches) watch.stop();
    this.watches = [];
    this.data.clear();
  }

  /** want marks the Secrets Sources reference now; the data of others is dropped. */
  want(secrets: Iterable<SecretName>): void {
    this.wanted.clear();
    for (const secret of secrets) this.wanted.add(keyOf(secret));
    for (const key of this.data.keys()) if (!this.wanted.has(key)) this.data.delete(key);
  }

  /** forget drops one Secret's data, so the next get reads it from the API server. */
  forget(secret: SecretName): void {
    this.data.delete(keyOf(secret));
  }

  /**
   * get gives a Secret's data, its resourceVersion and opt-in metadata; it reads through when the cache misses. A
   * missing Secret is a TerminalError naming the Secret, who uses it (`usedBy`) and the keys it must hold.
   */
  async get(secret: SecretName, usedBy: string, keys: string): Promise<SecretEntry> {
    const key = keyOf(secret);
    let entry = this.data.get(key);
    if (!entry) {
      const live = await getObject(this.connection, { apiVersion: 'v1', kind: 'Secret', namespace: secret.namespace, name: secret.name });
      if (live && this.wanted.has(key)) this.seen(live, live);
      entry = live ? entryOf(live) : undefined;
    }
    if (!entry) throw new TerminalError('SecretNotFound', `${secretNotFoundPrefix} ${key} (${usedBy}) does not exist; create it in namespace ${secret.namespace} with ${keys}. Nothing is fetched, and nothing pruned, until it exists.`);
    return entry;
  }

  private seen(present: KubernetesManifest | undefined, object: KubernetesManifest): void {
    const key = keyOf({ namespace: object.metadata.namespace ?? 'default', name: object.metadata.name });
    if (!this.wanted.has(key)) return;
    const before = this.data.get(key)?.version;
    if (present) this.data.set(key, entryOf(present));
    else this.data.delete(key);
    if (before !== (present ? this.data.get(key)?.version : undefined)) this.onChange({ namespace: object.metadata.namespace ?? 'default', name: object.metadata.name });
  }
}

function entryOf(secret: KubernetesManifest): SecretEntry {
  return {
    data: ((secret as { data?: Record<string, string> }).data ?? {}),
    version: secret.metadata.resourceVersion ?? '',
    labels: secret.metadata.labels ?? {},
    annotations: secret.metadata.annotations ?? {},
    type: (secret as { type?: string }).type ?? '',
  };
}

export function keyOf(secret: SecretName): string {
  return `${secret.namespace}/${secret.name}`;
}
