import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { isReconcileFailure, messageOf } from '@tidemark/contracts';
import { RenderFailure, type OpenedRemoteBase, type RemoteBase, type RemoteBaseFetcher } from '@tidemark/render';
import { GitStore, type AuthHeaders } from './git-store';
import type { GitSizeLimits } from './pack-size-guard';

/** RemoteBaseRepositoriesOptions say where a source's remote bases may come from and how they are fetched. */
export interface RemoteBaseRepositoriesOptions {
  /** The source, for messages and the render cache. */
  source: string;
  /**
   * Hosts remote bases may be fetched from (`host` or `host:port`, lower case), as the operator
   * lists them in render.remoteBases.hosts; a source cannot add any.
   */
  hosts: readonly string[];
  /** Folder of the bare caches, one per repository. */
  cacheDir: string;
  /** The source's size limits: each fetch of a remote base is held to them. */
  limits: GitSizeLimits;
  /** The source's own URL: its credentials go to a base on that origin only. */
  sourceUrl: string;
  headers: AuthHeaders;
}

const commitPattern = /^[0-9a-f]{40}$/;

/**
 * RemoteBaseRepositories fetches Kustomize remote bases for one source with the same Git client,
 * size guards and bounds as the source itself (redirects within the origin, a deadline, capped
 * advertisements and packs): only from the operator's hosts, with the source's credentials only
 * on the source's own origin, into a bare cache per repository. A ref that resolves to a commit
 * already cached is not fetched again.
 */
export class RemoteBaseRepositories implements RemoteBaseFetcher {
  private readonly stores = new Map<string, { store: GitStore; ready: Promise<void>; queue: Promise<unknown> }>();
  private readonly hosts: ReadonlySet<string>;

  constructor(private readonly options: RemoteBaseRepositoriesOptions) {
    this.hosts = new Set(options.hosts.map((host) => host.toLowerCase()));
  }

  get owner(): string {
    return this.options.source;
  }

  async open(base: RemoteBase): Promise<OpenedRemoteBase> {
    if (!this.hosts.has(base.host)) {
      throw new RenderFailure('RemoteBaseRefused', `remote base "${base.entry.slice(0, 200)}" is on host ${base.host}, which is not in render.remoteBases.hosts (${[...this.hosts].join(', ') || 'none'}); the operator decides which hosts remote bases may come from`);
    }
    const entry = this.storeFor(base);
    await entry.ready;
    const run = entry.queue.catch(() => undefined).then(() => this.resolve(entry.store, base));
    entry.queue = run;
    try {
      return await run;
    } catch (error) {
      if (error instanceof RenderFailure) throw error;
      const reason = isReconcileFailure(error) ? error.message : messageOf(error);
      throw new RenderFailure('RemoteBaseFailed', `remote base "${base.entry.slice(0, 200)}" could not be fetched: ${reason}`);
    }
  }

  /** resolve finds the commit the base's ref names and makes sure it is cached, fetching only that ref. */
  private async resolve(store: GitStore, base: RemoteBase): Promise<OpenedRemoteBase> {
    const ref = base.ref;
    if (ref && commitPattern.test(ref)) {
      if (!(await store.hasCommit(ref))) await this.fetchCommit(store, ref);
      return { reader: store, commit: ref, pinnedBy: 'commit' };
    }
    const target = await this.advertised(store, ref);
    if (!target) throw new RenderFailure('RemoteBaseFailed', `remote base "${base.entry.slice(0, 200)}": ${base.repository} has no ${ref ? `tag or branch ${ref}` : 'default branch'}`);
    const commit = target.peeled ?? target.oid;
    if (!(await store.hasCommit(commit))) await store.fetch({ ref: target.ref });
    if (!(await store.hasCommit(commit))) throw new RenderFailure('RemoteBaseFailed', `remote base "${base.entry.slice(0, 200)}": ${target.ref} of ${base.repository} was fetched, and commit ${commit.slice(0, 12)} did not come`);
    return { reader: store, commit, pinnedBy: !ref ? 'nothing' : target.ref.startsWith('refs/tags/') ? 'tag' : 'branch' };
  }

  /** advertised finds a tag, then a branch, of that name (or HEAD): one small advertisement each. */
  private async advertised(store: GitStore, ref: string | undefined): Promise<{ ref: string; oid: string; peeled?: string } | undefined> {
    const candidates = !ref ? ['HEAD'] : ref.startsWith('refs/') ? [ref] : [`refs/tags/${ref}`, `refs/heads/${ref}`];
    for (const candidate of candidates) {
      const found = (await store.listRefs(candidate)).find((advertised) => advertised.ref === candidate);
      if (found) return found;
    }
    return undefined;
  }

  private async fetchCommit(store: GitStore, commit: string): Promise<void> {
    try {
      await store.fetch({ ref: commit });
    } catch {
      // Servers may refuse a commit id in "want"; every branch and tag then brings it, within the same limits.
    }
    if (!(await store.hasCommit(commit))) await store.fetch({ everything: true });
  }

  private storeFor(base: RemoteBase): { store: GitStore; ready: Promise<void>; queue: Promise<unknown> } {
    let entry = this.stores.get(base.key);
    if (!entry) {
      const sameOrigin = new URL(base.repository).origin === originOf(this.options.sourceUrl);
      const folder = join(this.options.cacheDir, createHash('sha256').update(base.key).digest('hex').slice(0, 24));
      const store = new GitStore(folder, base.repository, sameOrigin ? this.options.headers : {}, { source: `${this.options.source} (remote base ${base.repository})`, limits: this.options.limits });
      entry = { store, ready: store.init(), queue: Promise.resolve() };
      entry.ready.catch(() => this.stores.delete(base.key));
      this.stores.set(base.key, entry);
    }
    return entry;
  }
}

/** originOf is an http(s) URL's origin, or undefined for an SSH URL (whose key never goes over https). */
function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}
