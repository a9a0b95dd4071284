/** TreeItem is one entry of a Git tree object. */
export interface TreeItem {
  mode: string;
  path: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
}

/** TreeFile is a non-tree entry: a blob (file or symlink) or a commit (submodule). */
export interface TreeFile {
  oid: string;
  mode: string;
  type: 'blob' | 'commit';
}

/** FileDelta is one path whose entry differs between two trees. */
export interface FileDelta {
  /** Path relative to the trees compared. */
  path: string;
  before?: TreeFile;
  after?: TreeFile;
}

export type ReadTree = (oid: string) => Promise<readonly TreeItem[]>;

/**
 * diffTrees walks two trees by OID and returns the files that differ. A subtree with the same
 * OID on both sides is skipped without being read, so the cost follows the size of the change,
 * not the size of the repository. Either side may be undefined (an empty tree).
 */
export async function diffTrees(readTree: ReadTree, before: string | undefined, after: string | undefined, prefix = ''): Promise<FileDelta[]> {
  if (before === after) return [];
  const [left, right] = await Promise.all([before ? readTree(before) : [], after ? readTree(after) : []]);
  const leftByName = new Map(left.map((item) => [item.path, item]));
  const rightByName = new Map(right.map((item) => [item.path, item]));
  const names = [...new Set([...leftByName.keys(), ...rightByName.keys()])].sort();
  const deltas: FileDelta[] = [];
  for (const name of names) {
    deltas.push(...(await diffEntry(readTree, leftByName.get(name), rightByName.get(name), prefix ? `${prefix}/${name}` : name)));
  }
  return deltas;
}

async function diffEntry(readTree: ReadTree, was: TreeItem | undefined, now: TreeItem | undefined, path: string): Promise<FileDelta[]> {
  if (was && now && was.oid === now.oid && was.mode === now.mode) return [];
  const deltas = await diffTrees(readTree, treeOid(was), treeOid(now), path);
  const before = fileOf(was);
  const after = fileOf(now);
  if (before || after) deltas.push({ path, ...(before ? { before } : {}), ...(after ? { after } : {}) });
  return deltas;
}

function treeOid(item: TreeItem | undefined): string | undefined {
  return item?.type === 'tree' ? item.oid : undefined;
}

function fileOf(item: TreeItem | undefined): TreeFile | undefined {
  return item && item.type !== 'tree' ? asFile(item) : undefined;
}

function asFile(item: TreeItem): TreeFile {
  return { oid: item.oid, mode: item.mode, type: item.type === 'commit' ? 'commit' : 'blob' };
}
