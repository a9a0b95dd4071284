import { applyObject, applyStatus, recordEvent, removeFinalizer, type ClusterConnection, type RunningWatch } from '@tidemark/cluster';
import { isReconcileFailure, TerminalError, messageOf, type KubernetesManifest, type Logger, type SourceStatus } from '@tidemark/contracts';
import type { SourceAuth } from '@tidemark/git-source';
import { GitHubAppTokens } from './github-app-tokens';
import { parseSourceObject, sourceNameOf, type SecretName, type SourceDeclaration, type SourceObjectRules } from './parse-source-object';
import { keyOf, SecretCache } from './secret-cache';
import { servesNamespace, watchedNamespaces, type ServedNamespaces } from './served-namespaces';
import { ForbiddenWatches, watchServed } from './served-watch';
import { credentialsFromSecret, secretCredentialKeys } from './secret-credentials';
import { checkSecretOptIn, secretSourceLabel, secretSourcesAnnotation } from './secret-opt-in';
import { decryptionKeyNames, decryptionKeysFromSecret, type DecryptionKeys } from './decryption-keys';
import { sourceApiVersion, sourceFinalizer, sourceKind } from './source-kind';
import { pruningStatus, SourceReason, stalledStatus, statusFromPoll, type BlockedObject, type PreviousStatus, type SourceObjectStatus } from './source-object-status';
import { problemsEvent } from './source-problems-event';

/** SourceHooks are what the app does when the set of Source objects changes. */
export interface SourceHooks {
  /**
   * put registers a new or changed source: its GitSource, and a poller runner where this process
   * polls. `decryptionKeys` reads the Source's own sops keys (undefined when it names none).
   */
  put(declaration: SourceDeclaration, credentials: () => Promise<SourceAuth | undefined>, decryptionKeys: () => Promise<DecryptionKeys | undefined>): Promise<void>;
  /**
   * retire stops polling a deleted source and queues the prune of its objects; it returns how many
   * are left, and those whose last run failed (they hold the Source until fixed or orphaned).
   */
  retire(name: string): Promise<{ left: number; blocked: BlockedObject[] }>;
  /** drop forgets a source entirely (its objects are pruned, or orphaned on purpose). */
  drop(name: string): Promise<void>;
  /** trigger polls a source now (its credentials changed). */
  trigger(name: string): void;
}

export interface SourceControllerOptions {
  /** The management cluster, where Source objects and their Secrets live. */
  connection: ClusterConnection;
  /**
   * The namespaces whose Sources are served, each watched on its own; a Source elsewhere is neither
   * read nor touched. 'all' watches cluster-wide (it needs a ClusterRole).
   */
  namespaces: ServedNamespaces;
  hooks: SourceHooks;
  log: Logger;
  /** Cross-namespace references, the default ServiceAccount. @defaultValue none allowed, none */
  rules?: SourceObjectRules;
  /**
   * Does this process own the Sources' lifecycle (finalizers, status, pruning)? Poller processes
   * do; a worker-only process only mirrors the set, to read their objects. @defaultValue true
   */
  manages?: boolean;
  /** How often a deleted Source's remaining objects are counted again. @defaultValue 2000 */
  pruneCheckMs?: number;
}

interface Entry {
  object: KubernetesManifest;
  declaration?: SourceDeclaration;
  /** The spec the hooks were last given, to skip events that change nothing (status writes). */
  putSpec?: string;
  tokens?: { version: string; tokens: GitHubAppTokens };
  /** The last revision whose problems have their Event. */
  reportedRevision?: string;
}

/**
 * SourceController watches Source objects in the management cluster and keeps the app's set of
 * sources equal to them: a new or changed Source is put, a deleted one is retired, its objects
 * pruned (unless it carries tidemark.dev/prune: "false"), and only then its finalizer removed.
 * Each Source is handled one event at a time. Credentials come from Secrets, re-read when they change.
 */
export class SourceController {
  private readonly entries = new Map<string, Entry>();
  private readonly queue = new Map<string, Promise<void>>();
  private readonly secrets: SecretCache;
  private readonly forbidden = new ForbiddenWatches();
  private watches: RunningWatch[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly options: SourceControllerOptions) {
    this.secrets = new SecretCache(options.connection, options.namespaces, options.log, this.forbidden, (secret) => this.secretChanged(secret));
  }

  private get manages(): boolean {
    return this.options.manages ?? true;
  }

  /**
   * start watches the served namespaces' Secrets and Sources. It fails with a TerminalError (code
   * SourceWatchForbidden) naming the namespace, the resource and what grants it when one may not be
   * read: a namespace served without its Role is a deployment mistake to show at once, not retry.
   */
  async start(): Promise<void> {
    try {
      await this.secrets.start();
      this.watches = watchedNamespaces(this.options.namespaces).map((namespace) => watchServed({
        connection: this.options.connection, apiVersion: sourceApiVersion, kind: sourceKind, namespace, forbidden: this.forbidden, log: this.options.log,
        onEvent: (type, object) => this.enqueue(object, type === 'DELETED'),
      }));
      await Promise.all(this.watches.map((watch) => watch.synced));
    } catch (error) {
      await this.stop();
      throw error;
    }
    await Promise.all(this.queue.values());
  }

  /** forbiddenWatches says which served namespaces' Sources or Secrets may not be read now (rights removed while running). */
  forbiddenWatches(): string[] {
    return this.forbidden.list();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const watch of this.watches) watch.stop();
    for (const timer of this.timers) clearTimeout(timer);
    await Promise.all(this.queue.values());
    this.secrets.stop();
  }

  /** recorded writes a poll's record to the Source's status, when the source is a Source object and something changed. */
  async recorded(name: string, record: SourceStatus): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry?.declaration || entry.object.metadata.deletionTimestamp) return;
    // A failed poll reads its Secret afresh next time, in case the watch missed a rotation.
    if (record.state === 'error' && entry.declaration.secret) this.secrets.forget(entry.declaration.secret);
    if (!this.manages) return;
    // In line with the Source's events: a status built on a stale one must not land after a newer one.
    await this.serially(name, async () => {
      const current = this.entries.get(name);
      if (!current?.declaration || current.object.metadata.deletionTimestamp) return;
      await this.writeStatus(current, statusFromPoll(record, current.declaration.object.generation, previousOf(current.object)));
      await this.reportProblems(current, record);
    });
  }

  /**
   * reportProblems records one Warning Event on the Source per revision whose files cannot all be
   * read (problemsEvent names it after the revision, so another process or a restart adds none).
   */
  private async reportProblems(entry: Entry, record: SourceStatus): Promise<void> {
    const event = problemsEvent(entry.object.metadata.name, record);
    if (!event || entry.reportedRevision === record.revision) return;
    await recordEvent(this.options.connection.asManager('tidemark-sources'), entry.object, event);
    entry.reportedRevision = record.revision;
  }

  /** webhook gives a Source's webhook (provider and the Secret's "token"), or undefined. */
  async webhook(name: string): Promise<{ source: string; provider: 'github' | 'gitea' | 'gogs' | 'gitlab' | 'generic'; secret: string } | undefined> {
    const hook = this.entries.get(name)?.declaration?.webhook;
    if (!hook) return undefined;
    const { data } = await this.secrets.get(hook.secret, `spec.webhook.secretRef of Source ${name}`, 'the key token');
    const token = data.token === undefined ? '' : Buffer.from(data.token, 'base64').toString('utf8').trim();
    return token ? { source: name, provider: hook.provider, secret: token } : undefined;
  }

  /** declarations lists the Source objects in force, for the dashboard and tests. */
  declarations(): SourceDeclaration[] {
    return [...this.entries.values()].flatMap((entry) => (entry.declaration ? [entry.declaration] : []));
  }

  private enqueue(object: KubernetesManifest, deleted: boolean): void {
    const namespace = object.metadata.namespace ?? 'default';
    // The watches are per served namespace; this only guards against a watch that strays.
    if (!servesNamespace(this.options.namespaces, namespace)) return;
    const name = sourceNameOf(namespace, object.metadata.name);
    void this.serially(name, () => (deleted ? this.gone(name) : this.seen(name, object)));
  }

  /** serially runs work on one Source after the work queued before it: its events and status writes. */
  private serially(name: string, work: () => Promise<void>): Promise<void> {
    const previous = this.queue.get(name) ?? Promise.resolve();
    const next = previous.then(work).catch((error: unknown) => {
      this.options.log.warn({ source: name, err: messageOf(error) }, 'Source could not be handled; the next event retries');
    }).finally(() => {
      if (this.queue.get(name) === next) this.queue.delete(name);
    });
    this.queue.set(name, next);
    return next;
  }

  private async seen(name: string, object: KubernetesManifest): Promise<void> {
    const entry: Entry = { ...this.entries.get(name), object };
    this.entries.set(name, entry);
    if (object.metadata.deletionTimestamp) return this.deleting(name, entry);
    if (this.manages && !object.metadata.finalizers?.includes(sourceFinalizer)) await this.addFinalizer(object);
    let declaration: SourceDeclaration;
    try {
      declaration = parseSourceObject(object, { ...this.options.rules, servedNamespaces: this.options.namespaces });
    } catch (error) {
      if (!isReconcileFailure(error)) throw error;
      // The last good declaration keeps running: a typo in a Source must not stop (or prune) what it applied.
      const reason = error.code === SourceReason.IdentityRequired ? SourceReason.IdentityRequired : undefined;
      if (this.manages) await this.writeStatus(entry, stalledStatus(error.message, object.metadata.generation ?? 0, previousOf(object), new Date(), reason));
      return;
    }
    const spec = JSON.stringify(declaration);
    entry.declaration = declaration;
    this.secrets.want(this.referencedSecrets());
    if (entry.putSpec === spec) return;
    entry.putSpec = spec;
    await this.options.hooks.put(declaration, () => this.credentials(name), () => this.decryptionKeys(name));
    if (this.manages) await this.writeStatus(entry, statusFromPoll({}, declaration.object.generation, previousOf(object)));
  }

  private async deleting(name: string, entry: Entry): Promise<void> {
    if (!entry.object.metadata.finalizers?.includes(sourceFinalizer)) return;
    const orphan = entry.object.metadata.annotations?.['tidemark.dev/prune'] === 'false';
    this.options.log.info({ source: name, orphan }, 'Source deleted; retiring it');
    const { left, blocked } = orphan ? { left: 0, blocked: [] } : await this.options.hooks.retire(name);
    if (!this.manages) return;
    this.options.log.info({ source: name, left, blocked: blocked.length }, left > 0 ? 'Source deleted; waiting for its objects to be pruned' : 'Source deleted; its objects are pruned');
    if (left > 0) {
      await this.writeStatus(entry, pruningStatus(left, entry.object.metadata.generation ?? 0, previousOf(entry.object), new Date(), blocked));
      this.recheck(name);
      return;
    }
    await this.options.hooks.drop(name);
    await removeFinalizer(this.options.connection, entry.object, sourceFinalizer);
  }

  private async gone(name: string): Promise<void> {
    const entry = this.entries.get(name);
    this.entries.delete(name);
    this.secrets.want(this.referencedSecrets());
    // Gone without our finalizer's work (removed by hand, or an orphaning delete): forget the source.
    if (entry?.putSpec) await this.options.hooks.drop(name);
  }

  private recheck(name: string): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const entry = this.entries.get(name);
      if (entry) this.enqueue(entry.object, false);
    }, this.options.pruneCheckMs ?? 2_000);
    this.timers.add(timer);
  }

  private async credentials(name: string): Promise<SourceAuth | undefined> {
    const entry = this.entries.get(name);
    const secret = entry?.declaration?.secret;
    if (!entry || !secret) return undefined;
    const usedBy = `spec.secretRef of Source ${entry.declaration!.object.namespace}/${entry.declaration!.object.name}`;
    const stored = await this.secrets.get(secret, usedBy, secretCredentialKeys);
    checkSecretOptIn(secret, stored, entry.declaration!.object, usedBy);
    const { data, version } = stored;
    const credentials = credentialsFromSecret(data, `Secret ${keyOf(secret)} (${usedBy})`);
    if ('auth' in credentials) return credentials.auth;
    // One token minter per Secret version: a rotated private key starts afresh.
    if (entry.tokens?.version !== version) entry.tokens = { version, tokens: new GitHubAppTokens(credentials.githubApp) };
    return { username: 'x-access-token', token: await entry.tokens.tokens.token() };
  }

  /** decryptionKeys reads the Source's own sops keys from its spec.decryption.secretRef Secret, at each render. */
  private async decryptionKeys(name: string): Promise<DecryptionKeys | undefined> {
    const declaration = this.entries.get(name)?.declaration;
    const secret = declaration?.decryption;
    if (!declaration || !secret) return undefined;
    const usedBy = `spec.decryption.secretRef of Source ${declaration.object.namespace}/${declaration.object.name}`;
    const stored = await this.secrets.get(secret, usedBy, decryptionKeyNames);
    // Keys too must be meant for this Source: a Source's author may not be someone who may read the namespace's Secrets.
    const { namespace, name: source } = declaration.object;
    try {
      checkSecretOptIn(secret, stored, declaration.object, usedBy);
    } catch {
      throw new TerminalError('SecretNotAllowed', `Secret ${keyOf(secret)} (${usedBy}) has not opted in for Source ${namespace}/${source}, so its keys are not used. Add to the Secret the label ${secretSourceLabel}: "${source}", or the annotation ${secretSourcesAnnotation}: "${namespace}/${source}".`);
    }
    return decryptionKeysFromSecret(stored.data, `Secret ${keyOf(secret)} (${usedBy})`);
  }

  private secretChanged(secret: SecretName): void {
    for (const [name, entry] of this.entries) {
      const uses = [entry.declaration?.secret, entry.declaration?.decryption];
      if (uses.some((used) => used && keyOf(used) === keyOf(secret))) this.options.hooks.trigger(name);
    }
  }

  private referencedSecrets(): SecretName[] {
    return [...this.entries.values()].flatMap((entry) => [entry.declaration?.secret, entry.declaration?.webhook?.secret, entry.declaration?.decryption].filter((secret): secret is SecretName => secret !== undefined));
  }

  private async addFinalizer(object: KubernetesManifest): Promise<void> {
    // A manager of its own, so a Source applied from Git (manager 'tidemark') keeps the finalizer.
    await applyObject(this.options.connection.asManager('tidemark-sources'), {
      apiVersion: sourceApiVersion, kind: sourceKind,
      metadata: { name: object.metadata.name, namespace: object.metadata.namespace ?? 'default', finalizers: [sourceFinalizer] },
    });
  }

  /**
   * writeStatus applies a status unless the Source holds it already (applyStatus compares with the
   * object it is given). What was written becomes the entry's status until the watch brings the
   * object back, so an unchanged poll writes nothing and an older event only costs a rewrite.
   */
  private async writeStatus(entry: Entry, status: SourceObjectStatus): Promise<void> {
    await applyStatus(this.options.connection.asManager('tidemark-sources'), entry.object, { ...status });
    entry.object = { ...entry.object, status: JSON.parse(JSON.stringify(status)) as Record<string, unknown> };
  }
}

function previousOf(object: KubernetesManifest): PreviousStatus {
  return (object.status ?? {}) as PreviousStatus;
}
