/** RepoEntry is one entry of a Git tree. */
export interface RepoEntry {
  mode: string;
  path: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
}

/**
 * RepoReader reads a repository at a revision straight from the Git object store (the
 * source's own cache). Renderers never see a checkout: their input is written from here.
 */
export interface RepoReader {
  /** treeAt returns the tree of a folder ('.' for the root) at a commit, or undefined when it is absent. */
  treeAt(revision: string, folder: string): Promise<string | undefined>;
  readTree(oid: string): Promise<readonly RepoEntry[]>;
  readBlob(oid: string): Promise<Uint8Array>;
}

export const symlinkMode = '120000';
