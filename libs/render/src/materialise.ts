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

interface Writing {
  view: RepoView;
  root: string;
  limits: InputLimits;
  bytes: number;
  written: WrittenFile[];
}

/**
 * materialiseFolders writes the given folders of the view's revision, read from the Git object
 * store, under `root` at their repository paths. A symlink or submodule anywhere in them, or a
 * tree past the limits, refuses the whole unit: rendering never follows a link out of the repository.
 */
export async function materialiseFolders(view: RepoView, folders: readonly string[], root: string, limits: InputLimits): Promise<WrittenFile[]> {
  const writing: Writing = { view, root, limits, bytes: 0, written: [] };
  for (const folder of outermostFolders(folders)) {
    const tree = await view.treeOf(folder);
    if (!tree) throw new RenderFailure('RenderFailed', `${folder} does not exist at revision ${view.revision}`, folder);
    await writeTree(writing, tree, folder);
  }
  return writing.written;
}

async function writeTree(writing: Writing, tree: string, folder: string): Promise<void> {
  const { view, root, limits } = writing;
  await mkdir(join(root, folder), { recursive: true });
  const files: Promise<void>[] = [];
  for (const entry of await view.entriesOfTree(tree)) {
    const path = folder === '.' ? entry.path : `${folder}/${entry.path}`;
    if (entry.type === 'tree') {
      await writeTree(writing, entry.oid, path);
      continue;
    }
    if (entry.type === 'commit') throw new RenderFailure('SubmoduleRefused', `${path} is a submodule; submodules are refused, not followed`, path);
    if (entry.mode === symlinkMode) throw new RenderFailure('SymlinkRefused', `${path} is a symbolic link; a render unit's files may not be links (they could point out of the repository)`, path);
    if (writing.written.length >= limits.maxFiles) throw new RenderFailure('RenderInputTooLarge', `the unit has more than ${limits.maxFiles} input files (at ${path})`, path);
    const bytes = await view.readBlob(entry.oid);
    writing.bytes += bytes.byteLength;
    if (bytes.byteLength > limits.maxFileBytes) throw new RenderFailure('RenderInputTooLarge', `${path} is ${bytes.byteLength} bytes, more than the limit of ${limits.maxFileBytes} for a render input`, path);
    if (writing.bytes > limits.maxTotalBytes) throw new RenderFailure('RenderInputTooLarge', `the unit's input files pass ${limits.maxTotalBytes} bytes (at ${path})`, path);
    const absolute = join(root, path);
    writing.written.push({ path, absolute, bytes });
    files.push(writeFile(absolute, bytes, { mode: entry.mode === '100755' ? 0o755 : 0o644 }));
  }
  await Promise.all(files);
}
