import { describe, expect, it } from 'vitest';
import { diffTrees, type TreeItem } from './tree-diff';

// Trees by OID, as a Git object store holds them.
const trees: Record<string, TreeItem[]> = {
  root1: [
    { path: 'apps', oid: 'apps1', mode: '040000', type: 'tree' },
    { path: 'big', oid: 'big1', mode: '040000', type: 'tree' },
    { path: 'x.yaml', oid: 'x1', mode: '100644', type: 'blob' },
  ],
  root2: [
    { path: 'apps', oid: 'apps2', mode: '040000', type: 'tree' },
    { path: 'big', oid: 'big1', mode: '040000', type: 'tree' },
    { path: 'x.yaml', oid: 'x2', mode: '100644', type: 'tree' },
    { path: 'link', oid: 'l1', mode: '120000', type: 'blob' },
  ],
  apps1: [{ path: 'a.yaml', oid: 'a1', mode: '100644', type: 'blob' }, { path: 'b.yaml', oid: 'b1', mode: '100644', type: 'blob' }],
  apps2: [{ path: 'a.yaml', oid: 'a2', mode: '100644', type: 'blob' }, { path: 'b.yaml', oid: 'b1', mode: '100755', type: 'blob' }],
  big1: [{ path: 'huge.yaml', oid: 'h1', mode: '100644', type: 'blob' }],
  x2: [{ path: 'inner.yaml', oid: 'i1', mode: '100644', type: 'blob' }],
};

describe('diffTrees', () => {
  it('returns changed files and never reads a subtree whose OID did not change', async () => {
    const read: string[] = [];
    const deltas = await diffTrees(async (oid) => {
      read.push(oid);
      return trees[oid] ?? [];
    }, 'root1', 'root2');
    expect(read).not.toContain('big1');
    expect(deltas).toEqual([
      { path: 'apps/a.yaml', before: { oid: 'a1', mode: '100644', type: 'blob' }, after: { oid: 'a2', mode: '100644', type: 'blob' } },
      { path: 'apps/b.yaml', before: { oid: 'b1', mode: '100644', type: 'blob' }, after: { oid: 'b1', mode: '100755', type: 'blob' } },
      { path: 'link', after: { oid: 'l1', mode: '120000', type: 'blob' } },
      { path: 'x.yaml/inner.yaml', after: { oid: 'i1', mode: '100644', type: 'blob' } },
      { path: 'x.yaml', before: { oid: 'x1', mode: '100644', type: 'blob' } },
    ]);
  });

  it('lists every file against an empty tree and nothing for equal trees', async () => {
    const read = async (oid: string) => trees[oid] ?? [];
    expect((await diffTrees(read, undefined, 'big1')).map((delta) => delta.path)).toEqual(['huge.yaml']);
    expect(await diffTrees(read, 'root1', 'root1')).toEqual([]);
  });
});
