import { posix } from 'node:path';

/**
 * resolveRepoPath resolves a reference written in a file of `folder` (both relative to the
 * repository root, '.' for the root) to a repository path, or undefined when it leaves the
 * repository (an absolute path, or `../` past the root).
 */
export function resolveRepoPath(folder: string, reference: string): string | undefined {
  if (posix.isAbsolute(reference) || reference.includes('\\') || reference.includes('\0')) return undefined;
  const joined = posix.normalize(posix.join(folder, reference));
  if (joined === '..' || joined.startsWith('../')) return undefined;
  return joined.replace(/\/+$/, '') || '.';
}

/** isUnder tells whether a repository path is `folder` itself or inside it. */
export function isUnder(path: string, folder: string): boolean {
  return folder === '.' || path === folder || path.startsWith(`${folder}/`);
}

/** folderOf returns the folder of a repository path ('.' at the root). */
export function folderOf(path: string): string {
  const folder = posix.dirname(path);
  return folder === '' ? '.' : folder;
}

/** outermostFolders drops folders that lie inside another folder of the list. */
export function outermostFolders(folders: Iterable<string>): string[] {
  const sorted = [...new Set(folders)].sort();
  const kept: string[] = [];
  for (const folder of sorted) {
    if (!kept.some((outer) => isUnder(folder, outer))) kept.push(folder);
  }
  return kept;
}
