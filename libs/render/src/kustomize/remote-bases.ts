import { createHash } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { defaultInputLimits, readInputTree, writeInputTree } from '../materialise';
import { RenderFailure } from '../render-failure';
import { RendererRegistry } from '../renderer-registry';
import type { Renderer, RenderJob } from '../renderer';
import { BlobCache, RepoView, TreeCache } from '../repo-view';
import { looksRemote } from './kustomization-references';
import { parseRemoteBase, type OpenedRemoteBase, type RemoteBase, type RemoteBaseFetcher } from './remote-base';

/** The folder under a unit's written root that remote bases are written to. */
export const remoteBasesFolder = '.tidemark-remote';
// Fields whose entries kustomize fetches when they are Git URLs.
const remoteFields = ['resources', 'bases', 'components'] as const;
const kustomizationNames = new Set(['kustomization.yaml', 'kustomization.yml', 'Kustomization']);
/** A remote base may name further remote bases, up to this depth. */
const maxDepth = 5;
// Every form looksRemote knows has `//`, `@`, `?ref=` or a host name with a dot before its first slash.
const mayNameRemote = /\/\/|@|\?ref=|[a-z0-9-]\.[a-z]{2,}(:\d+)?\//i;
/** Remote bases one unit may use, all depths together. */
const maxRemoteBases = 32;

interface Placing {
  root: string;
  fetcher: RemoteBaseFetcher | undefined;
  /** Written bases by repository key and commit: a base named twice is fetched and written once. */
  written: Map<string, Promise<string>>;
  warnings: string[];
  depthOf: Map<string, number>;
  /** Where each base was written, and what to call it in messages: `<repository>//<folder> at <commit>`. */
  origins: Map<string, string>;
  registry: RendererRegistry;
}

/**
 * materialiseRemoteBases makes the written tree under `root` render without a network: every
 * remote Git entry of every kustomization in it is fetched by `fetcher`, its folder (and the
 * folders that folder reads) written under `.tidemark-remote/`, and the entry rewritten to that
 * local path, so kustomize never fetches anything. A remote base's own remote entries are handled
 * the same way (the job's inputFiles say where the kustomizations are). It returns warnings (an entry not pinned to a tag or commit) for the unit.
 */
export async function materialiseRemoteBases(job: Pick<RenderJob, 'root' | 'remoteBases' | 'inputFiles'>, kustomize: Renderer): Promise<string[]> {
  const { root, remoteBases: fetcher, inputFiles } = job;
  // The kept copy was emptied of everything but the unit's inputs: a folder here came from Git.
  if (await exists(join(root, remoteBasesFolder))) {
    throw new RenderFailure('RenderFailed', `${remoteBasesFolder}/ at the repository root is reserved for the remote bases Tidemark writes; rename that folder`, remoteBasesFolder);
  }
  const placing: Placing = { root, fetcher, written: new Map(), warnings: [], depthOf: new Map(), origins: new Map(), registry: new RendererRegistry([kustomize]) };
  // Written kustomizations are checked from their bytes in memory; most name nothing remote and are not read again.
  const pending = inputFiles
    ? inputFiles.filter((file) => kustomizationNames.has(basename(file.absolute)) && mayNameRemote.test(Buffer.from(file.bytes).toString('utf8'))).map((file) => file.absolute)
    : await kustomizationsUnder(root, root);
  while (pending.length > 0) {
    const file = pending.shift();
    if (!file) break;
    pending.push(...(await rewriteRemoteEntries(placing, file)));
  }
  return placing.warnings;
}

/** rewriteRemoteEntries rewrites one kustomization's remote entries to local paths; it returns the kustomizations it wrote. */
async function rewriteRemoteEntries(placing: Placing, file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  // Most kustomizations name only local paths: those are not parsed here at all.
  if (!mayNameRemote.test(text)) return [];
  const where = displayPath(placing, file);
  // A kustomization that does not parse fails in kustomize itself, with its own message.
  const document = parseDocument(text);
  if (document.errors.length > 0 || !isMap(document.contents)) return [];
  const added: string[] = [];
  let changed = false;
  for (const field of remoteFields) {
    const list = document.contents.get(field, true);
    if (!isSeq(list)) continue;
    for (const item of list.items) {
      if (!isScalar(item) || typeof item.value !== 'string' || !looksRemote(item.value)) continue;
      // A local file or folder of that name wins, as in planning (kustomizeInputs).
      if (await exists(join(dirname(file), item.value))) continue;
      const local = await placeBase(placing, { where, field, entry: item.value, depth: placing.depthOf.get(file) ?? 0 }, added);
      item.value = relative(dirname(file), local) || '.';
      changed = true;
    }
  }
  if (changed) await writeFile(file, document.toString());
  return added;
}

/** placeBase fetches and writes the base one entry names (once per repository, folder and commit) and returns where it lies. */
async function placeBase(placing: Placing, named: { where: string; field: string; entry: string; depth: number }, added: string[]): Promise<string> {
  const { where, field, entry, depth } = named;
  const refuse = (why: string) => new RenderFailure('RemoteBaseRefused', `${where}: ${field} entry "${entry.slice(0, 200)}" ${why}`, where);
  const parsed = parseRemoteBase(entry);
  if ('problem' in parsed) throw refuse(parsed.problem);
  const { base } = parsed;
  if (!placing.fetcher) throw refuse('is a remote base, and remote bases are off: the operator lists no hosts in render.remoteBases.hosts (or vendor the base into the repository)');
  if (depth >= maxDepth) throw refuse(`is a remote base nested ${maxDepth} deep; remote bases may name remote bases only ${maxDepth - 1} levels down`);
  const opened = await placing.fetcher.open(base);
  if (opened.pinnedBy === 'branch' || opened.pinnedBy === 'nothing') {
    const how = opened.pinnedBy === 'branch' ? `follows branch ${base.ref ?? ''}` : "names no ref and follows the repository's default branch";
    placing.warnings.push(`Warning: ${where}: ${field} entry "${entry.slice(0, 200)}" ${how}, so what it renders can change without a commit here; pin it with ?ref=<tag or commit> (rendered at ${opened.commit.slice(0, 12)})`);
  }
  const key = `${base.key}//${base.folder}@${opened.commit}`;
  let written = placing.written.get(key);
  if (!written) {
    if (placing.written.size >= maxRemoteBases) throw refuse(`is one remote base too many; a unit may use ${maxRemoteBases}`);
    written = writeBase(placing, base, opened, depth, added);
    placing.written.set(key, written);
  }
  return written;
}

/** writeBase writes the base's folder, and the folders of its repository it reads, under `.tidemark-remote/<digest>/`. */
async function writeBase(placing: Placing, base: RemoteBase, opened: OpenedRemoteBase, depth: number, added: string[]): Promise<string> {
  const kustomize = placing.registry.get('kustomize');
  if (!kustomize) throw new Error('the kustomize renderer is not registered');
  const view = new RepoView(opened.reader, opened.commit, new TreeCache(), placing.registry, new BlobCache());
  const where = `${base.repository}//${base.folder} at ${opened.commit.slice(0, 12)}`;
  const marker = await view.markerIn(base.folder, 'kustomize');
  if (!marker) throw new RenderFailure('RemoteBaseRefused', `remote base ${where} is not a folder with a kustomization.yaml`);
  const inputs = await kustomize.inputs(base.folder, marker, view).catch((error: unknown) => { throw inBase(error, where); });
  const tree = await readInputTree(view, [base.folder, ...inputs], defaultInputLimits).catch((error: unknown) => { throw inBase(error, where); });
  const into = join(placing.root, remoteBasesFolder, createHash('sha256').update(`${base.key}@${opened.commit}`).digest('hex').slice(0, 20));
  placing.origins.set(into, `${base.repository} at ${opened.commit.slice(0, 12)}`);
  const written = await writeInputTree(tree, into);
  for (const file of written) {
    if (!kustomizationNames.has(file.path.slice(file.path.lastIndexOf('/') + 1))) continue;
    placing.depthOf.set(file.absolute, depth + 1);
    added.push(file.absolute);
  }
  return join(into, base.folder);
}

/** inBase says that a failure came from inside a remote base. */
function inBase(error: unknown, where: string): RenderFailure {
  if (error instanceof RenderFailure) return new RenderFailure(error.code, `in remote base ${where}: ${error.message}`);
  return new RenderFailure('RenderFailed', `in remote base ${where}: ${error instanceof Error ? error.message : String(error)}`);
}

/** kustomizationsUnder lists the kustomization files of the unit's written tree (remote bases are added as they are written). */
async function kustomizationsUnder(folder: string, root: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && !(folder === root && entry.name === remoteBasesFolder)) found.push(...(await kustomizationsUnder(path, root)));
    else if (entry.isFile() && kustomizationNames.has(entry.name)) found.push(path);
  }
  return found;
}

/** displayPath is a file's repository path, or for a file of a remote base, its path in that repository and the repository. */
function displayPath(placing: Placing, file: string): string {
  for (const [into, origin] of placing.origins) {
    if (file.startsWith(`${into}/`)) return `${relative(into, file)} (remote base ${origin})`;
  }
  return relative(placing.root, file);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}
