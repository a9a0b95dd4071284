import * as fs from 'node:fs';
import git from 'isomorphic-git';
import { TerminalError } from '@tidemark/contracts';
import { OciArtifactSource, ociReferenceOf, parseCosignKeys, type ArtifactFile, type PulledArtifact, type RegistryCredentials } from '@tidemark/oci-source';
import type { GitSizeLimits } from './pack-size-guard';
import type { SourceAuth, SourceSpec } from './source-spec';

/** OciHead is the commit an OCI source's ref names now, and how many files were pulled to make it (0 when it was known). */
export interface OciHead {
  commit: string;
  fetchedObjects: number;
}

// Where the commit made of each digest is kept in the source's object cache, so a restart does not pull again.
const digestRefPrefix = 'refs/tidemark/oci/';
// An artifact has no commit time of its own: its manifest's created annotation, else the epoch, so the commit id depends on the artifact only.
const author = { name: 'Tidemark OCI', email: 'oci@tidemark.invalid', timezoneOffset: 0 };

/**
 * OciRemote stands where the Git server stands for an oci:// source: `head` resolves the ref to a
 * digest (one HEAD request while the tag stays) and returns the commit made of that artifact,
 * writing it into the source's object cache when the digest is new. The commit is a function of
 * the artifact alone (its files, digest and created time; no parent), so every replica and worker
 * that pulls the same digest makes the same commit id, and the rest of Tidemark (index, diffs,
 * revision gate, jobs) reads an OCI source as it reads Git. Its subject names the digest.
 */
export class OciRemote {
  private readonly artifact: OciArtifactSource;
  private readonly commits = new Map<string, string>();
  private readonly verifying: boolean;
  private readonly verified = new Set<string>();

  constructor(private readonly gitdir: string, private readonly spec: SourceSpec, limits: GitSizeLimits, credentials: () => Promise<SourceAuth | undefined>) {
    const oci = spec.oci!;
    const ref = 'digest' in spec.ref ? { digest: spec.ref.digest } : 'tag' in spec.ref ? { tag: spec.ref.tag } : 'semver' in spec.ref ? { semver: spec.ref.semver } : undefined;
    if (!ref) throw new TerminalError('SourceSpecInvalid', `source ${spec.name}: an OCI source follows a tag, a semver range or a digest`);
    this.verifying = oci.cosignKeys.length > 0;
    this.artifact = new OciArtifactSource({
      source: spec.name,
      reference: ociReferenceOf(spec.url, { insecure: oci.insecure }),
      ref,
      // The Git limits, read for an artifact: its layer is one fetch, packed and once inflated; a file is one object.
      limits: { maxLayerBytes: limits.maxFetchBytes, maxInflatedBytes: limits.maxFetchBytes, maxFileBytes: limits.maxObjectBytes },
      credentials: async () => registryCredentials(await credentials()),
      ...(oci.certificateAuthority ? { ca: oci.certificateAuthority } : {}),
      ...(oci.layerMediaType ? { layerMediaType: oci.layerMediaType } : {}),
      ...(this.verifying ? { cosignKeys: parseCosignKeys(oci.cosignKeys, `source ${spec.name}: oci.cosignKeys`) } : {}),
    });
  }

  /** requests counts the registry requests sent so far (for tests and benchmarks). */
  get requests(): number {
    return this.artifact.client.requests;
  }

  async head(): Promise<OciHead> {
    const resolved = await this.artifact.resolve();
    const known = await this.commitOf(resolved.digest);
    // A digest pulled before this process verified signatures (a cache from another run) is checked again.
    if (known && (!this.verifying || this.verified.has(resolved.digest))) return { commit: known, fetchedObjects: 0 };
    const pulled = await this.artifact.pull(resolved);
    if (this.verifying) this.verified.add(resolved.digest);
    const commit = await writeArtifactCommit(this.gitdir, pulled, `${this.artifact.client.reference.host}/${this.artifact.client.reference.repository}`);
    await git.writeRef({ fs, gitdir: this.gitdir, ref: `${digestRefPrefix}${hexOf(resolved.digest)}`, value: commit, force: true });
    this.commits.set(resolved.digest, commit);
    return { commit, fetchedObjects: pulled.files.length };
  }

  private async commitOf(digest: string): Promise<string | undefined> {
    const known = this.commits.get(digest);
    if (known) return known;
    const stored = await git.resolveRef({ fs, gitdir: this.gitdir, ref: `${digestRefPrefix}${hexOf(digest)}` }).catch(() => undefined);
    if (stored) this.commits.set(digest, stored);
    return stored;
  }
}

function hexOf(digest: string): string {
  return digest.slice('sha256:'.length);
}

/** registryCredentials reads a source's auth as a registry login: a token is the password (username as given, else the default). */
function registryCredentials(auth: SourceAuth | undefined): RegistryCredentials | undefined {
  if (!auth) return undefined;
  if ('bearerToken' in auth) return { bearerToken: auth.bearerToken };
  if ('token' in auth) return { username: auth.username ?? 'x-access-token', password: auth.token };
  if ('password' in auth) return { username: auth.username, password: auth.password };
  return undefined;
}

interface Folder {
  files: Map<string, ArtifactFile>;
  folders: Map<string, Folder>;
}

/** writeArtifactCommit writes an artifact's files as blobs and trees and a parentless commit naming its digest. */
export async function writeArtifactCommit(gitdir: string, artifact: PulledArtifact, repository: string): Promise<string> {
  const root: Folder = { files: new Map(), folders: new Map() };
  for (const file of artifact.files) {
    const parts = file.path.split('/');
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.get(part);
      if (!next) folder.folders.set(part, (next = { files: new Map(), folders: new Map() }));
      folder = next;
    }
    folder.files.set(parts.at(-1)!, file);
  }
  const tree = await writeFolder(gitdir, root);
  const timestamp = Math.floor((artifact.created?.getTime() ?? 0) / 1000);
  // No tag in the message: a digest that two tags name is one commit, whichever tag a process followed.
  const lines = [`OCI artifact ${repository}@${artifact.digest}`, ...(artifact.origin ? ['', `Built from: ${artifact.origin}`] : [])];
  return git.writeCommit({
    fs, gitdir,
    commit: { tree, parent: [], author: { ...author, timestamp }, committer: { ...author, timestamp }, message: `${lines.join('\n')}\n` },
  });
}

async function writeFolder(gitdir: string, folder: Folder): Promise<string> {
  const entries: Array<{ mode: string; path: string; oid: string; type: 'blob' | 'tree' }> = [];
  for (const [name, file] of folder.files) {
    if (folder.folders.has(name)) throw new TerminalError('OciLayerRefused', `the artifact's path ${file.path} is both a file and a folder`);
    entries.push({ mode: file.executable ? '100755' : '100644', path: name, oid: await git.writeBlob({ fs, gitdir, blob: file.data }), type: 'blob' });
  }
  for (const [name, child] of folder.folders) entries.push({ mode: '040000', path: name, oid: await writeFolder(gitdir, child), type: 'tree' });
  return git.writeTree({ fs, gitdir, tree: entries });
}
