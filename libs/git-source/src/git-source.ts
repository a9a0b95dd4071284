import { TerminalError, TransientError } from '@tidemark/contracts';
import type { RenderObserver } from '@tidemark/render';
import { BoundedCache } from './bounded-cache';
import { verifyCommit, verifyTag } from './commit-signature';
import type { CommitSummary } from './commit-time';
import { GitStore, type AnnouncedPack, type AuthHeaders } from './git-store';
import { RemoteBaseRepositories } from './remote-base-repositories';
import { RevisionGate } from './revision-gate';
import { defaultGitSizeLimits, type GitSizeLimits } from './pack-size-guard';
import { OciRemote } from './oci-remote';
import { IndexBuilder, type BuiltIndex, type RenderFigures } from './index-builder';
import { defaultLoadLimits, type LoadLimits } from './load-limits';
import type { ManifestFile } from './load-manifest-file';
import { renderedOutputLimits } from './load-rendered-output';
import type { Manifest } from './manifest';
import { diffObjects, type ObjectChange } from './object-change';
import { redactUrl } from './redact-url';
import { RevisionIndex } from './revision-index';
import { refPrefix, selectRevision, type RemoteTarget } from './select-revision';
import type { SourceError, SourceWarning } from './source-error';
import { sshTransport } from './ssh-transport';
import { parseSshUrl } from './ssh-url';
import type { SourceAuth, SourceSpec } from './source-spec';
import { UnitIndexer, type UnitRendering } from './unit-index';
import type { UnitProvenance } from './revision-index';

export interface GitSourceOptions {
  spec: SourceSpec;
  /** Folder of this source's bare object cache, kept between polls. Use one folder per process. */
  cacheDir: string;
  /** Per-file load limits; unset fields keep the defaults of `defaultLoadLimits`. */
  limits?: Partial<LoadLimits>;
  /** Parsed files kept by blob OID. @defaultValue 50000 */
  parsedBlobCacheSize?: number;
  /** Revision indexes kept for readObject and diffs. @defaultValue 4 */
  revisionCacheSize?: number;
  /** Pack files after which the object cache is emptied and fetched afresh. @defaultValue 100 */
  maxPacks?: number;
  /** Renders Kustomize, Helm and other units. @defaultValue none: every YAML file is a plain manifest */
  rendering?: UnitRendering;
  /** Size limits of one object and of one fetch or revision; unset fields keep `defaultGitSizeLimits`. */
  sizeLimits?: Partial<GitSizeLimits>;
  /**
   * The current credentials, asked for at every request to the Git server (a Secret that rotates,
   * a GitHub App token). @defaultValue the fixed headers of `spec.auth`
   */
  credentials?: () => Promise<SourceAuth | undefined>;
}

/** PollResult is what one poll found. When `previousRevision` is absent, `changes` lists every object as added. */
export interface PollResult {
  source: string;
  revision: string;
  previousRevision?: string;
  moved: boolean;
  changes: ObjectChange[];
  /** Every problem in the source at `revision` (not only new ones). */
  errors: SourceError[];
  /** Every parser and renderer warning at `revision`; they hold nothing back. */
  warnings?: SourceWarning[];
  durationMs: number;
  /** Objects received from the server: 0 when the ref had not moved. */
  fetchedObjects: number;
  /** Kubernetes objects the source declares at `revision` (absent on results not made by a poll). */
  declaredObjects?: number;
  /** The commit at `revision`: subject, author, time. */
  commit?: CommitSummary;
  /** Render units planned and rendered for this revision (none rendered when nothing moved), and their time. */
  render?: RenderFigures;
}

/** ReadObjectResult is an object as declared at a revision (a copy: callers may change it). */
export interface ReadObjectResult {
  object: Manifest;
  /** The file that declares it, or for a rendered object its unit's folder with a trailing slash. */
  path: string;
  line: number;
  blobOid: string;
  /** Set for a rendered object: the renderer and the unit's folder. */
  unit?: UnitProvenance;
}

/** ObjectListing is every object at a revision, for a full resync; erroring objects are listed too. */
export interface ObjectListing {
  source: string;
  revision: string;
  objects: Array<{ objectKey: string; path: string; line: number; blobOid: string }>;
  errors: SourceError[];
}

export interface PollOptions {
  /**
   * Diff from this revision instead of the last one this instance polled (e.g. the last one
   * delivered); `null` diffs from nothing, every object a change (nothing was delivered yet).
   */
  since?: string | null;
  /** Wraps each run of a render tool in the sandbox, for the poll's trace. @defaultValue none */
  observeRender?: RenderObserver;
  /**
   * The branch and commit a push webhook named. Its objects are asked for beside the ref discovery
   * and kept only when the server's ref points at that very commit; the body proves nothing.
   * @defaultValue none: discovery first, then the fetch
   */
  announced?: AnnouncedPush;
}

/** AnnouncedPush is what a verified push webhook's body says the branch now points at (unproven). */
export interface AnnouncedPush {
  branch: string;
  revision: string;
}

const revisionPattern = /^[0-9a-f]{40}$/;

interface AnnouncedPackResult {
  commit: string;
  pack: AnnouncedPack;
}

/**
 * GitSource reads one Git source: it polls the remote ref, fetches only new objects into a
 * local bare cache, and derives each revision's objects from the previous revision's by tree
 * diff. Nothing happens at construction; call `open()` first and `close()` at the end.
 */
export class GitSource {
  private readonly store: GitStore;
  private readonly builder: IndexBuilder;
  private readonly indexes: BoundedCache<string, Promise<BuiltIndex>>;
  private lastRevision: string | undefined;
  // The index the next one is derived from: the last polled, or (in a worker that never polls) the last read.
  private lastIndex: BuiltIndex | undefined;
  private described: { revision: string; declaredObjects: number; commit?: CommitSummary } | undefined;
  // Fetches run one at a time: isomorphic-git writes refs and the shallow file without locks.
  private fetching: Promise<unknown> = Promise.resolve();
  /** The warm in flight: a poll waits for it rather than fetching and reading the same head beside it. */
  private warming: Promise<unknown> | undefined;
  private readonly gate: RevisionGate;
  private readonly verifiedRevisions = new BoundedCache<string, Promise<string>>(64);
  // Set for an oci:// source: the registry stands where the Git server stands.
  private readonly oci: OciRemote | undefined;

  constructor(private readonly options: GitSourceOptions) {
    const { spec } = options;
    const sizeLimits = lowerOnly({ ...defaultGitSizeLimits, ...options.sizeLimits }, spec.limits);
    const credentials = options.credentials;
    const headers = credentials ? async () => authHeaders(await credentials()) : authHeaders(spec.auth);
    this.store = new GitStore(options.cacheDir, spec.url, headers, { source: spec.name, limits: sizeLimits }, transportFor(spec, options.credentials, sizeLimits));
    const limits = { ...defaultLoadLimits, ...options.limits };
    this.builder = new IndexBuilder({
      source: spec.name,
      maxRevisionBytes: sizeLimits.maxRevisionBytes,
      store: this.store,
      path: spec.path,
      ignoreFile: spec.ignoreFile,
      limits,
      parsedBlobs: new BoundedCache<string, ManifestFile>(options.parsedBlobCacheSize ?? 50_000),
      ...(options.rendering ? { units: new UnitIndexer(this.store, options.rendering, { ...renderedOutputLimits(limits, sizeLimits.maxRevisionBytes), ...options.rendering.outputLimits }, remoteBasesOf(options, sizeLimits, headers)) } : {}),
    });
    this.indexes = new BoundedCache(options.revisionCacheSize ?? 4);
    this.oci = spec.oci ? new OciRemote(options.cacheDir, spec, sizeLimits, credentials ?? (async () => spec.auth)) : undefined;
    this.gate = new RevisionGate({
      gitdir: options.cacheDir,
      describe: `source ${spec.name} (${describeRef(spec.ref)})`,
      refreshHead: () => this.refreshHead(),
      hasCommit: (oid) => this.store.hasCommit(oid),
      // Every commit an OCI source's cache holds was made from an artifact its ref once named.
      heldIsHistory: this.oci !== undefined,
    });
  }

  /**
   * admitRevision is the worker's check of a job's revision: it returns the revision to apply
   * (the job's, or the ref's newer head) or throws RevisionNotAdmitted. See RevisionGate.
   */
  admitRevision(revision: string): Promise<string> {
    return this.gate.admit(revision);
  }

  /**
   * warm fetches the configured ref's head ahead of the jobs that will name it (an agent told that
   * the source moved), through the revision gate's own refresh, and reads that head's objects as a
   * job would: a job for that head is then admitted and read from the cache. It fetches nothing
   * when `revision` is already held (or is no commit id); a revision that is not on the ref is never
   * fetched. Returns the head fetched, or undefined when nothing was asked of the server.
   */
  async warm(revision?: string): Promise<string | undefined> {
    if (revision !== undefined && (!revisionPattern.test(revision) || (await this.store.hasCommit(revision)))) return undefined;
    const warming = (async () => {
      const head = await this.gate.warm();
      // A head that does not read (too big, a broken render) is not kept: the job reads it again and reports why.
      await this.indexFor(head).catch(() => undefined);
      return head;
    })();
    this.warming = warming;
    try {
      return await warming;
    } finally {
      if (this.warming === warming) this.warming = undefined;
    }
  }

  /**
   * admitTarget admits a rollout's target revision for a cluster as it is, if it is on the ref's
   * history (RevisionGate.admitExact). A source that verifies commits checks the target's own
   * signature (an older commit was never checked as a head, perhaps); one that verifies tags admits
   * only its head, whose tag the poll checked.
   */
  async admitTarget(revision: string): Promise<string> {
    const admitted = await this.gate.admitExact(revision);
    const keys = this.options.spec.verify;
    if (!keys) return admitted;
    if (keys.mode === 'tag') {
      if ((await this.gate.admit(admitted)) === admitted) return admitted;
      throw new TerminalError('RevisionNotAdmitted', `Source ${this.name} verifies signed tags, so only its head can be applied; a rollout's older target ${admitted.slice(0, 12)} was refused.`);
    }
    let check = this.verifiedRevisions.get(admitted);
    if (!check) {
      check = verifyCommit(this.options.cacheDir, admitted, keys, this.name);
      check.catch(() => this.verifiedRevisions.delete(admitted));
      this.verifiedRevisions.set(admitted, check);
    }
    await check;
    return admitted;
  }

  get name(): string {
    return this.options.spec.name;
  }

  get spec(): SourceSpec {
    return this.options.spec;
  }

  /**
   * followingRef is the same repository, with the same credentials, rendering and limits, following
   * another ref in its own cache folder (a pull request's branch or one commit, for a preview).
   * Nothing is fetched until it is opened and polled.
   */
  followingRef(ref: SourceSpec['ref'], cacheDir: string): GitSource {
    return new GitSource({ ...this.options, spec: { ...this.options.spec, ref }, cacheDir });
  }

  /** revision is the last revision a poll returned. */
  get revision(): string | undefined {
    return this.lastRevision;
  }

  async open(): Promise<void> {
    await this.store.init();
  }

  async close(): Promise<void> {
    await this.fetching.catch(() => undefined);
    this.lastIndex = undefined;
  }

  /** poll compares the advertised ref with the last revision and, when it moved, fetches and diffs. */
  async poll(options: PollOptions = {}): Promise<PollResult> {
    const started = performance.now();
    const previous = options.since === null ? undefined : options.since ?? this.lastRevision;
    await this.warming?.catch(() => undefined);
    const { revision, fetchedObjects, target } = await this.fetchHead(options.announced);
    // An unsigned or wrongly signed head (or tag) fails the poll: nothing of it is read, the last revision stays.
    if (target) await this.verified(revision, target);
    const basis = previous ? await this.basisAt(previous) : undefined;
    const { built, changes, fresh } = await this.advance(revision, basis, options.observeRender);
    this.lastRevision = revision;
    this.gate.seen(revision);
    this.lastIndex = built;
    const { commit, declaredObjects } = await this.describeRevision(built);
    return {
      ...(commit ? { commit } : {}),
      declaredObjects,
      source: this.name,
      revision,
      ...(basis ? { previousRevision: basis.revision } : {}),
      moved: revision !== previous,
      changes,
      errors: built.errors,
      warnings: built.warnings,
      durationMs: Math.round(performance.now() - started),
      fetchedObjects,
      render: fresh ? built.render : { planned: built.render.planned, rendered: 0, durationMs: 0, planMs: 0 },
    };
  }

  /** fetchHead asks the remote where the ref points and fetches that revision when it is new (an OCI source has no Git target to verify). */
  private async fetchHead(announced?: AnnouncedPush): Promise<{ revision: string; fetchedObjects: number; target?: RemoteTarget }> {
    const oci = this.oci;
    if (oci) {
      const head = await this.serialized(() => oci.head());
      return { revision: head.commit, fetchedObjects: head.fetchedObjects };
    }
    const early = this.announcedPack(announced);
    const target = await this.remoteTarget();
    if (await this.hasTarget(target)) return { revision: target.commit, fetchedObjects: 0, target };
    const fetched = await this.serialized(() => this.fetchTarget(target, early));
    return { revision: fetched.head ?? target.commit, fetchedObjects: fetched.objects, target };
  }

  /** registryRequests counts the requests an OCI source sent its registry (undefined for Git), for tests and benchmarks. */
  get registryRequests(): number | undefined {
    return this.oci?.requests;
  }

  /** describeRevision reads the commit and counts the objects once per revision, not once per poll. */
  private async describeRevision(built: BuiltIndex): Promise<{ commit?: CommitSummary; declaredObjects: number }> {
    if (this.described?.revision !== built.revision) {
      const commit = await this.store.commitSummary(built.revision);
      this.described = { revision: built.revision, declaredObjects: countKeys(built.index.keys()), ...(commit ? { commit } : {}) };
    }
    const { commit, declaredObjects } = this.described;
    return commit ? { commit, declaredObjects } : { declaredObjects };
  }

  /**
   * readObject returns an object at a revision, or undefined when Git does not declare it
   * there. An object that is declared but broken (duplicate, unparsable file, symlink, failed
   * render) throws a TerminalError naming the file, the line and the reason. A revision not yet
   * in the local cache is fetched first. With a cluster, an object of a unit rendered per
   * cluster is that cluster's version, and undefined when the cluster's render lacks it.
   */
  async readObject(revision: string, objectKey: string, cluster?: string): Promise<ReadObjectResult | undefined> {
    const built = await this.indexFor(revision);
    const found = built.index.lookup(objectKey);
    if (!found) return undefined;
    if ('error' in found) throw new TerminalError(found.error.code, found.error.message);
    const { object } = found;
    const perCluster = cluster !== undefined && object.variants !== undefined;
    const manifest = perCluster ? object.variants?.get(cluster) : object.manifest;
    if (!manifest) return undefined;
    const unit = object.unit ? unitOf(object.unit, perCluster ? cluster : undefined) : undefined;
    return { object: structuredClone(manifest), path: object.path, line: object.line, blobOid: object.blobOid, ...(unit ? { unit } : {}) };
  }

  /**
   * annotationOf reads one annotation of an object at a revision from the parsed index, without
   * copying the object (routing reads the cluster selector of every object it routes). A broken
   * or absent object has none.
   */
  async annotationOf(revision: string, objectKey: string, annotation: string): Promise<string | undefined> {
    const found = (await this.indexFor(revision)).index.lookup(objectKey);
    if (!found || 'error' in found) return undefined;
    return found.object.manifest?.metadata.annotations?.[annotation];
  }

  /** listObjects lists every object at a revision for a full resync. */
  async listObjects(revision: string): Promise<ObjectListing> {
    const built = await this.indexFor(revision);
    const objects: ObjectListing['objects'] = [];
    for (const objectKey of built.index.keys()) {
      const summary = built.index.summary(objectKey);
      if (summary) objects.push({ objectKey, path: summary.path, line: summary.line, blobOid: summary.blobOid });
    }
    return { source: this.name, revision, objects: objects.sort((a, b) => a.objectKey.localeCompare(b.objectKey)), errors: built.errors };
  }

  private async advance(revision: string, basis: BuiltIndex | undefined, observe: RenderObserver | undefined): Promise<{ built: BuiltIndex; changes: ObjectChange[]; fresh: boolean }> {
    // The same revision is built again when a cluster's capabilities changed: its Helm units may render otherwise now.
    if (basis?.revision === revision && this.builder.isCurrent(basis)) return { built: basis, changes: [], fresh: false };
    // A first poll after a warm (the reconciler's start fetches ahead) diffs the index the warm built from nothing, not building it again.
    const warmed = basis ? undefined : await this.indexes.get(revision)?.catch(() => undefined);
    if (warmed && this.builder.isCurrent(warmed)) return { built: warmed, changes: diffObjects(RevisionIndex.empty(), warmed.index, warmed.index.keys()), fresh: true };
    const { built, touched } = await this.builder.build(revision, basis, observe);
    this.indexes.set(revision, Promise.resolve(built));
    return { built, changes: diffObjects(basis?.index ?? RevisionIndex.empty(), built.index, touched), fresh: true };
  }

  /** basisAt returns the index of the revision to diff from; undefined when it is gone (then all is listed). */
  private async basisAt(revision: string): Promise<BuiltIndex | undefined> {
    try {
      // As it was built: diffed against an index rendered with newer capabilities, it shows what they changed.
      return await this.indexFor(revision, { stale: true });
    } catch (error) {
      if (error instanceof TerminalError) return undefined;
      throw error;
    }
  }

  /**
   * indexFor returns a revision's index: a known one (even if a reset emptied its objects), or one
   * built after fetching; a known one rendered with older cluster capabilities is built again unless `stale`.
   */
  private async indexFor(revision: string, options: { stale?: boolean } = {}): Promise<BuiltIndex> {
    const usable = (built: BuiltIndex) => options.stale === true || this.builder.isCurrent(built);
    if (this.lastIndex?.revision === revision && usable(this.lastIndex)) return this.lastIndex;
    const known = this.indexes.get(revision);
    if (known && usable(await known)) return known;
    if (known) this.indexes.delete(revision);
    return this.indexAt(await this.ensureRevision(revision));
  }

  private indexAt(revision: string): Promise<BuiltIndex> {
    let pending = this.indexes.get(revision);
    if (!pending) {
      // Derive from the last polled revision when there is one: usually a small tree diff away.
      const basis = this.lastIndex;
      pending = this.builder.build(revision, basis).then(({ built }) => {
        if (this.lastRevision === undefined) this.lastIndex = built;
        return built;
      });
      pending.catch(() => this.indexes.delete(revision));
      this.indexes.set(revision, pending);
    }
    return pending;
  }

  private async remoteTarget(): Promise<RemoteTarget> {
    const { ref, url } = this.options.spec;
    const target = selectRevision(ref, 'commit' in ref ? [] : await this.store.listRefs(refPrefix(ref)));
    if (!target) {
      const wanted = 'branch' in ref ? `branch ${ref.branch}` : 'tag' in ref ? `tag ${ref.tag}` : `a tag matching ${'semver' in ref ? ref.semver : ''}`;
      throw new TransientError('GitRefNotFound', `${redactUrl(url)} has no ${wanted}; the source keeps its last revision until it appears.`);
    }
    return target;
  }

  /** refreshHead asks where the configured ref points and fetches that commit if it is new. */
  private async refreshHead(): Promise<string> {
    if (this.oci) return (await this.fetchHead()).revision;
    const target = await this.remoteTarget();
    if (await this.hasTarget(target)) return this.verified(target.commit, target);
    const fetched = await this.serialized(() => this.fetchTarget(target));
    return this.verified(fetched.head ?? target.commit, target);
  }

  /** hasTarget tells whether the target's commit, and the tag object a tag-verifying source checks, are in the cache. */
  private async hasTarget(target: RemoteTarget): Promise<boolean> {
    if (!(await this.store.hasCommit(target.commit))) return false;
    return this.options.spec.verify?.mode !== 'tag' || this.store.hasObject(target.oid);
  }

  /**
   * verified returns a revision whose commit signature (or, in mode tag, whose annotated tag's
   * signature) the source's `verify` keys accept, each checked once, or throws CommitNotVerified.
   */
  private async verified(revision: string, target: RemoteTarget): Promise<string> {
    const keys = this.options.spec.verify;
    if (!keys) return revision;
    const byTag = keys.mode === 'tag';
    const key = byTag ? `${target.oid}>${revision}` : revision;
    let check = this.verifiedRevisions.get(key);
    if (!check) {
      check = byTag ? this.tagVerified(revision, target, keys) : verifyCommit(this.options.cacheDir, revision, keys, this.name);
      check.catch(() => this.verifiedRevisions.delete(key));
      this.verifiedRevisions.set(key, check);
    }
    await check;
    return revision;
  }

  /** tagVerified checks the tag's signature and that the tag names the revision about to be applied. */
  private async tagVerified(revision: string, target: RemoteTarget, keys: NonNullable<SourceSpec['verify']>): Promise<string> {
    const signer = await verifyTag(this.options.cacheDir, target, keys, this.name);
    const tagged = await this.store.peelToCommit(target.oid);
    if (tagged !== revision) throw new TerminalError('CommitNotVerified', `Tag ${target.ref.replace(/^refs\/tags\//, '')} of source ${this.name} names commit ${tagged.slice(0, 12)}, not ${revision.slice(0, 12)}; nothing is applied.`);
    return signer;
  }

  /**
   * announcedPack asks for a pushed commit's new objects while the discovery runs (one server
   * round trip instead of two in a row), when the push names the followed branch and a commit not
   * held. Never rejects: without a pack the fetch goes the usual way.
   */
  private async announcedPack(announced: AnnouncedPush | undefined): Promise<AnnouncedPackResult | undefined> {
    const { ref } = this.options.spec;
    if (!announced || !('branch' in ref) || ref.branch !== announced.branch || !revisionPattern.test(announced.revision)) return undefined;
    try {
      if (await this.store.hasCommit(announced.revision)) return undefined;
      if ((await this.store.packCount()) >= (this.options.maxPacks ?? 100)) return undefined;
      const pack = await this.store.requestPackOf(announced.revision);
      return pack ? { commit: announced.revision, pack } : undefined;
    } catch {
      return undefined;
    }
  }

  private async fetchTarget(target: RemoteTarget, early?: Promise<AnnouncedPackResult | undefined>): Promise<{ head?: string; objects: number }> {
    // The gate: a pack asked for on a webhook's word is kept only for the commit the server's ref names.
    const announced = await early;
    if (announced && announced.commit === target.commit) {
      const kept = await this.store.keepPack(announced.pack, target.commit).catch(() => undefined);
      if (kept) return kept;
    }
    if ((await this.store.packCount()) >= (this.options.maxPacks ?? 100)) await this.store.reset();
    try {
      const fetched = await this.store.fetch({ ref: target.ref });
      if (fetched.head && (await this.store.hasCommit(fetched.head))) return fetched;
    } catch (error) {
      // Servers may refuse a commit id in "want"; fetching every ref below finds it instead.
      if (!revisionPattern.test(target.ref)) throw error;
    }
    return this.store.fetch({ everything: true });
  }

  /** ensureRevision makes sure a commit is in the cache: the followed ref first, then everything. */
  private async ensureRevision(revision: string): Promise<string> {
    if (!revisionPattern.test(revision)) throw new TerminalError('RevisionInvalid', `"${revision.slice(0, 80)}" is not a commit id`);
    if (await this.store.hasCommit(revision)) return revision;
    // An OCI source can make only the commit of the artifact its ref names now.
    if (this.oci) await this.fetchHead();
    else await this.serialized(async () => {
      if (await this.store.hasCommit(revision)) return;
      const target = await this.remoteTarget().catch(() => undefined);
      if (target) await this.fetchTarget(target);
      if (!(await this.store.hasCommit(revision))) await this.store.fetch({ everything: true });
    });
    if (!(await this.store.hasCommit(revision))) {
      const gone = this.oci ? 'it was made from an artifact the ref no longer names' : 'it may have been force-pushed away and collected';
      throw new TerminalError('RevisionNotFound', `Revision ${revision} is not in ${redactUrl(this.options.spec.url)} (${gone}).`);
    }
    return revision;
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = this.fetching.catch(() => undefined).then(work);
    this.fetching = next;
    return next;
  }
}

/** authHeaders turns credentials into request headers: basic auth, a bearer token, or one extra header. */
export function authHeaders(auth: SourceAuth | undefined): Record<string, string> {
  // A deploy key is for SSH only; nothing of it goes into an HTTP request.
  if (!auth || 'sshPrivateKey' in auth) return {};
  if ('bearerToken' in auth) return { Authorization: `Bearer ${auth.bearerToken}` };
  if ('extraHeader' in auth) {
    const colon = auth.extraHeader.indexOf(':');
    return { [auth.extraHeader.slice(0, colon).trim()]: auth.extraHeader.slice(colon + 1).trim() };
  }
  const [username, password] = 'token' in auth ? [auth.username ?? 'x-access-token', auth.token] : [auth.username, auth.password];
  return { Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

/** transportFor is the SSH transport of an ssh:// or scp-like source (none for http and https). */
function transportFor(spec: SourceSpec, credentials: GitSourceOptions['credentials'], limits: GitSizeLimits): { transport?: ReturnType<typeof sshTransport> } {
  const ssh = parseSshUrl(spec.url);
  if (!ssh || !('target' in ssh)) return {};
  const current = credentials ?? (async () => spec.auth);
  return { transport: sshTransport(ssh.target, { source: spec.name, url: spec.url, credentials: current, maxAdvertisementBytes: limits.maxObjectBytes }) };
}

/** remoteBasesOf is the fetcher of a source's Kustomize remote bases, when the operator allows any host; its caches lie beside the source's. */
function remoteBasesOf(options: GitSourceOptions, limits: GitSizeLimits, headers: AuthHeaders): RemoteBaseRepositories | undefined {
  const hosts = options.rendering?.remoteBaseHosts ?? [];
  if (hosts.length === 0) return undefined;
  const { spec } = options;
  return new RemoteBaseRepositories({ source: spec.name, hosts, cacheDir: `${options.cacheDir}.remote-bases`, limits, sourceUrl: spec.url, headers });
}

function countKeys(keys: Iterable<string>): number {
  let count = 0;
  for (const _key of keys) count += 1;
  return count;
}

function describeRef(ref: SourceSpec['ref']): string {
  if ('branch' in ref) return `branch ${ref.branch}`;
  if ('tag' in ref) return `tag ${ref.tag}`;
  if ('semver' in ref) return `tags matching ${ref.semver}`;
  if ('digest' in ref) return `digest ${ref.digest}`;
  return `commit ${ref.commit}`;
}

/** unitOf is an object's provenance as read: for one cluster of a per-cluster unit, the values that cluster got. */
function unitOf(unit: UnitProvenance, cluster: string | undefined): UnitProvenance {
  const { valuesByCluster, ...provenance } = unit;
  const values = cluster === undefined ? undefined : valuesByCluster?.get(cluster);
  return values ? { ...provenance, clusterValues: values } : provenance;
}

/**
 * lowerOnly applies a source's own limits (tidemark.yaml, Source objects) to the reconciler's: a
 * source may only hold itself tighter. Whoever may write a Source object would otherwise lift the
 * memory bound that protects every replica (a 1 MiB push inflated to 8 GiB).
 */
function lowerOnly(operator: GitSizeLimits, own: Partial<GitSizeLimits>): GitSizeLimits {
  const lower = (key: keyof GitSizeLimits) => Math.min(operator[key], own[key] ?? operator[key]);
  return { maxObjectBytes: lower('maxObjectBytes'), maxFetchBytes: lower('maxFetchBytes'), maxRevisionBytes: lower('maxRevisionBytes') };
}
