import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RenderFailure } from './render-failure';
import { symlinkMode } from './repo-reader';
import { outermostFolders } from './repo-path';
import type { RepoView } from './repo-view';

/** InputLimits bound the input tree of one render unit. */
export interface InputLimits {
  /** Largest single file. @defaultValue 4 MiB */
  maxFileBytes: number;
  /** All files together. @defaultValue 64 MiB */
  maxTotalBytes: number;
  /** Most files. @defaultValue 10_000 */
  maxFiles: number;
}

export const defaultInputLimits: Readonly<InputLimits> = Object.freeze({
  maxFileBytes: 4 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
  maxFiles: 10_000,
});

/** WrittenFile is one input file as written: its repository path, where it lies, and its bytes. */
export interface WrittenFile {
  path: string;
  absolute: string;
  bytes: Uint8Array;
}

/** InputTree is a unit's input files read from the Git object store and checked, before anything is written. */
export interface InputTree {
  /** Every folder to create, repository paths, outermost first. */
  folders: string[];
  files: Array<{ path: string; oid: string; bytes: Uint8Array; mode: number }>;
}

interface Reading {
  view: RepoView;
  limits: InputLimits;
  bytes: number;
  tree: InputTree;
}

/**
 * materialiseFolders writes the given folders of the view's revision, read from the Git object
 * store, under `root` at their repository paths. A symlink or submodule anywhere in them, or a
 * tree past the limits, refuses the whole unit: rendering never follows a link out of the repository.
 */
export async function materialiseFolders(view: RepoView, folders: readonly string[], root: string, limits: InputLimits): Promise<WrittenFile[]> {
  return writeInputTree(await readInputTree(view, folders, limits), root);
}

/**
 * readInputTree reads the given folders of the view's revision and checks them (no symlink, no
 * submodule, within the limits) without touching the disk, so a refused unit writes nothing and
 * the reading can overlap with making the temporary folder.
 */
export async function readInputTree(view: RepoView, folders: readonly string[], limits: InputLimits): Promise<InputTree> {
  const reading: Reading = { view, limits, bytes: 0, tree: { folders: [], files: [] } };
  for (const folder of outermostFolders(folders)) {
    const tree = await view.treeOf(folder);
    if (!tree) throw new RenderFailure('RenderFailed', `${folder} does not exist at revision ${view.revision}`, folder);
    await readTree(reading, tree, folder);
  }
  return reading.tree;
}

/** writeInputTree writes a checked input tree under `root`: folders first, then every file at once. */
export async function writeInputTree(tree: InputTree, root: string): Promise<WrittenFile[]> {
  // Each folder is made with its parents; only folders without subfolders need asking for.
  const leaves = tree.folders.filter((folder) => !tree.folders.some((other) => other.startsWith(`${folder}/`)));
  await Promise.all(leaves.map((folder) => mkdir(join(root, folder), { recursive: true })));
  const written = tree.files.map((file) => ({ path: file.path, absolute: join(root, file.path), bytes: file.bytes }));
  await Promise.all(tree.files.map((file, index) => writeFile(written[index]?.absolute ?? '', file.bytes, { mode: file.mode })));
  return written;
}

async function readTree(reading: Reading, tree: string, folder: string): Promise<void> {
  const { view, limits } = reading;
  reading.tree.folders.push(folder);
  const blobs: Array<Promise<void>> = [];
  for (const entry of await view.entriesOfTree(tree)) {
    const path = folder === '.' ? entry.path : `${folder}/${entry.path}`;
    if (entry.type === 'tree') {
      await readTree(reading, entry.oid, path);
      continue;
    }
    if (entry.type === 'commit') throw new RenderFailure('SubmoduleRefused', `${path} is a submodule; submodules are refused, not followed`, path);
    if (entry.mode === symlinkMode) throw new RenderFailure('SymlinkRefused', `${path} is a symbolic link; a render unit's files may not be links (they could point out of the repository)`, path);
    if (reading.tree.files.length >= limits.maxFiles) throw new RenderFailure('RenderInputTooLarge', `the unit has more than ${limits.maxFiles} input files (at ${path})`, path);
    const file: InputTree['files'][number] = { path, oid: entry.oid, bytes: new Uint8Array(), mode: entry.mode === '100755' ? 0o755 : 0o644 };
    reading.tree.files.push(file);
    blobs.push(view.readBlob(entry.oid).then((bytes) => {
      reading.bytes += bytes.byteLength;
      if (bytes.byteLength > limits.maxFileBytes) throw new RenderFailure('RenderInputTooLarge', `${path} is ${bytes.byteLength} bytes, more than the limit of ${limits.maxFileBytes} for a render input`, path);
      if (reading.bytes > limits.maxTotalBytes) throw new RenderFailure('RenderInputTooLarge', `the unit's input files pass ${limits.maxTotalBytes} bytes (at ${path})`, path);
      file.bytes = bytes;
    }));
  }
  await Promise.all(blobs);
}
